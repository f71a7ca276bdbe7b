/**
 * A streamed answer arrives in fragments: each `message` event carries the next piece of the
 * answer (the platform's own example sends "Hello", then ", I can help with HR policy
 * questions."). A conversation sends the answer back as the messages those fragments form,
 * the same messages a wait run of that answer returns (docs/api.md, section 5):
 * - consecutive fragments of the same role are one message, joined in order;
 * - within it, adjacent text parts are concatenated into one;
 * - any other content part keeps its place between them.
 */

import type { Message } from '../contract/agents';

type Block = Message['content'][number];

const isText = (b: unknown): b is Block => typeof b === 'object' && b !== null && (b as Block).type === 'text' && typeof (b as Block).text === 'string';

/** Adds one fragment to the messages formed so far (in place: `formed` is the caller's own array). */
export function addFragment(formed: Message[], fragment: Message): void {
  const content: unknown[] = Array.isArray(fragment.content) ? fragment.content : [];
  let last = formed.at(-1);
  if (!last || last.role !== fragment.role) {
    // Its blocks are added one by one below, as a later fragment's are: adjacent text parts of the first fragment join too.
    last = { ...fragment, content: [] };
    formed.push(last);
  }
  for (const block of content) {
    const tail = last.content.at(-1);
    if (isText(block) && isText(tail)) tail.text += block.text;
    // A copy: the fragment's own blocks are never changed when later text joins them.
    else last.content.push((isText(block) ? { ...block } : block) as Block);
  }
}

/** The messages a list of fragments forms. */
export function joinFragments(fragments: readonly Message[]): Message[] {
  const formed: Message[] = [];
  for (const f of fragments) addFragment(formed, f);
  return formed;
}
