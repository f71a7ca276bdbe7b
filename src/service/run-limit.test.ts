/**
 * The cap on runs one token may have going at once: stream and wait, both families, share
 * it; past it a run is refused with the family's 429 and Retry-After, and a slot comes back
 * when a run ends, the client's leaving included.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { UsageError } from './flags.ts';
import { serviceOptionsOf } from './options.ts';
import type { RunEnded, RunStarted } from './runs.ts';
import { answerOf, expectLegacyError, expectProblem, listeningService, TOKENS, type Answer } from './test-http.ts';

const started: RunStarted[] = [];
const ended: RunEnded[] = [];
const server = listeningService({
  memory: true,
  rateLimitPerMinute: 0,
  maxRunsPerToken: 2,
  runObserver: { started: (r) => started.push(r), ended: (r) => ended.push(r) },
});

const USER_HI = [{ role: 'USER', content: [{ type: 'text', text: 'Hi' }] }];
type Flavour = 'platform' | 'legacy';

const open: AbortController[] = [];

/** Starts a slow-storyteller run (about 20 s) and answers once its headers (stream) or nothing (wait) came. */
function slowRun(flavour: Flavour, mode: 'stream' | 'wait', token: string = TOKENS.agents) {
  const abort = new AbortController();
  open.push(abort);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const [path, body] =
    flavour === 'platform'
      ? ['/api/agents/slow-storyteller/runs', { messages: USER_HI, stream: mode === 'stream' }]
      : [`/rest/api/v1/agents/runs/${mode}`, { agent_id: 'slow-storyteller', messages: USER_HI }];
  const response = fetch(server.url + path, { method: 'POST', headers, body: JSON.stringify(body), signal: abort.signal });
  response.catch(() => {
    // aborted by the test
  });
  return { abort, response };
}


async function until(what: string, condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!condition()) throw new Error(`timed out waiting until ${what}`);
}

const running = () => started.length - ended.length;

afterEach(async () => {
  for (const a of open.splice(0)) a.abort();
  await until('every run ended', () => running() === 0);
});

function expectRefusal(flavour: Flavour, a: Answer): void {
  if (flavour === 'platform') expectProblem(a, 429, 'rate_limit_exceeded');
  else expectLegacyError(a, 429);
  expect(a.headers.get('retry-after')).toBe('5');
  expect(a.text).toContain('2 runs going');
}

describe.each(['platform', 'legacy'] as const)('%s runs past the per-token cap', (flavour) => {
  test('a third run of one token, stream or wait, is refused with 429 and Retry-After while two are going', async () => {
    // One stream in each family: the cap counts the token's runs, whatever the family.
    expect((await slowRun('platform', 'stream').response).status).toBe(200);
    expect((await slowRun('legacy', 'stream').response).status).toBe(200);
    await until('both runs started', () => running() === 2);

    for (const mode of ['stream', 'wait'] as const) {
      const refused = await answerOf(await slowRun(flavour, mode).response);
      expectRefusal(flavour, refused);
    }
    // A refusal starts nothing.
    expect(running()).toBe(2);

    // Another token is not held back by this one.
    const other = slowRun(flavour, 'stream', TOKENS.everything);
    expect((await other.response).status).toBe(200);
  });

  test('wait-mode runs hold slots too, and a slot comes back when a client leaves', async () => {
    const first = slowRun(flavour, 'wait');
    slowRun(flavour, 'wait');
    await until('both wait runs started', () => running() === 2);
    expectRefusal(flavour, await answerOf(await slowRun(flavour, 'stream').response));

    const endedBefore = ended.length;
    first.abort.abort();
    await until('the abandoned run ended', () => ended.length > endedBefore);
    expect(ended.at(-1)).toMatchObject({ mode: 'wait', outcome: 'client-closed' });
    expect((await slowRun(flavour, 'stream').response).status).toBe(200);
  });
});

test('--max-runs takes a whole number, 0 for no cap', () => {
  expect(serviceOptionsOf({ 'max-runs': '5' }).maxRunsPerToken).toBe(5);
  expect(serviceOptionsOf({ 'max-runs': '0' }).maxRunsPerToken).toBe(0);
  expect(serviceOptionsOf({}).maxRunsPerToken).toBeUndefined();
  for (const bad of ['', '-1', '2.5', 'many']) expect(() => serviceOptionsOf({ 'max-runs': bad })).toThrow(UsageError);
});
