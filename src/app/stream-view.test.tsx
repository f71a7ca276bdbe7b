/**
 * The stream view with the console's own styles, where what a user sees depends on layout:
 * the timeline's data column at 1440 px, a transcript that follows a growing stream, the
 * active row of a long (virtualized) timeline kept in view, and a big run's progress. (In the
 * app layer because features may not import the app's styles.)
 */
import './styles.css';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { page, userEvent as browserUser } from 'vitest/browser';
import { sendStreamRun } from '../engine/send/run-stream';
import { StreamOutput } from '../features/runs/components/stream-output';
import { wipeHistory } from '../db/history';
import { expectedEventsOf } from '../engine/progress';
import type { RunState } from '../engine/run-machine';
import { runRequest } from '../engine/run-request';
import { StreamLog } from '../engine/stream-log';
import { DEMO, freshBrowser, renderConsole } from './test-console';

const msg = (text: string) => JSON.stringify({ messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text }] }] });
const streaming: RunState = { status: 'streaming', transitions: [] };
const done: RunState = { status: 'done', transitions: [] };

beforeAll(async () => {
  await page.viewport(1440, 900);
});
beforeEach(async () => {
  await wipeHistory();
});
afterEach(() => cleanup());

function openLog(): StreamLog {
  const log = new StreamLog('platform');
  log.open({ method: 'POST', url: '/api/agents/firehose/runs', status: 200, durationMs: 3, headers: [], receivedAt: 0 });
  return log;
}

/** Within two pixels of the end: where a follower keeps the view. */
const atEnd = (el: HTMLElement) => el.scrollHeight - el.clientHeight - el.scrollTop <= 2;

it('at 1440 px the timeline’s data column has room to read each event’s preview', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/firehose');
  const count = await screen.findByRole('spinbutton', { name: 'Events' }, { timeout: 15_000 });
  await user.clear(count);
  await user.type(count, '40');
  await user.click(screen.getByRole('button', { name: 'Run and stream' }));
  await screen.findByText('Done', { selector: '[role=status]' }, { timeout: 20_000 });
  const timeline = await screen.findByLabelText('40 events');
  // The last row is on screen: the timeline follows the stream's end.
  const cells = [...timeline.querySelectorAll<HTMLElement>('.data-preview')];
  const cell = cells.find((c) => c.parentElement?.firstElementChild?.textContent === '40');
  expect(cell, 'the row of event 40').toBeDefined();
  expect(cell!.textContent).toBe('token 40');
  // Room for a few words, not just `{…`; and this preview shows whole.
  expect(cell!.clientWidth).toBeGreaterThanOrEqual(180);
  expect(cell!.scrollWidth).toBeLessThanOrEqual(cell!.clientWidth);
});

it('the transcript follows a growing stream; scrolling up stops that, and Follow goes back to the end', async () => {
  const log = openLog();
  render(<StreamOutput log={log} state={streaming} durationMs={undefined} />);
  const transcript = screen.getByLabelText('Transcript');
  let n = 0;
  const more = async (lines: number) => {
    for (let i = 0; i < lines; i++) log.event({ id: String(++n), event: 'message', data: msg(`line ${n}\n`) });
    const last = `line ${n}`;
    await waitFor(() => expect(transcript.textContent).toContain(last));
  };
  for (let batch = 0; batch < 5; batch++) await more(40);
  expect(transcript.scrollHeight).toBeGreaterThan(2 * transcript.clientHeight);
  await waitFor(() => expect(atEnd(transcript)).toBe(true));
  await more(40);
  await waitFor(() => expect(atEnd(transcript)).toBe(true));

  // Scrolling up by hand: the user reads; new text must not pull the view away.
  await browserUser.wheel(transcript, { delta: { y: -600 } });
  await waitFor(() => expect(screen.getByRole<HTMLInputElement>('checkbox', { name: 'Follow' }).checked).toBe(false));
  const readingAt = transcript.scrollTop;
  expect(atEnd(transcript)).toBe(false);
  await more(40);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  expect(transcript.scrollTop).toBe(readingAt);

  // Follow on again: at the end at once, and it stays there as text arrives.
  await userEvent.setup().click(screen.getByRole('checkbox', { name: 'Follow' }));
  await waitFor(() => expect(atEnd(transcript)).toBe(true));
  await more(40);
  await waitFor(() => expect(atEnd(transcript)).toBe(true));
});

it('keys move the active row through a long timeline and keep it in view', async () => {
  const log = openLog();
  for (let i = 1; i <= 5000; i++) log.event({ id: String(i), event: 'message', data: msg(`token ${i} `) }, i);
  log.finish();
  render(<StreamOutput log={log} state={done} durationMs={0} />);
  const timeline = screen.getByLabelText('5000 events');
  const user = userEvent.setup();
  timeline.focus();
  /** The active row's label, once it is rendered and wholly inside the timeline's box. */
  const activeInView = () => {
    const id = timeline.getAttribute('aria-activedescendant');
    const row = id ? document.getElementById(id) : null;
    if (!row) return null;
    const [r, box] = [row.getBoundingClientRect(), timeline.getBoundingClientRect()];
    return r.top >= box.top - 1 && r.bottom <= box.bottom + 1 ? /^(\d+)\. /.exec(row.getAttribute('aria-label') ?? '')?.[1] : `${row.getAttribute('aria-label')}, out of view`;
  };
  await user.keyboard('{Home}');
  await waitFor(() => expect(activeInView()).toBe('1'));
  await user.keyboard('{End}');
  await waitFor(() => expect(activeInView()).toBe('5000'));
  const pageRows = Math.floor(timeline.clientHeight / 30) - 1;
  await user.keyboard('{PageUp}');
  await waitFor(() => expect(activeInView()).toBe(String(5000 - pageRows)));
  await user.keyboard('{PageUp}{PageUp}{ArrowUp}');
  await waitFor(() => expect(activeInView()).toBe(String(5000 - 3 * pageRows - 1)));
  await user.keyboard('{Home}{PageDown}{ArrowDown}');
  await waitFor(() => expect(activeInView()).toBe(String(1 + pageRows + 1)));
  await user.keyboard('{Enter}');
  const opened = screen.getByLabelText(`Event ${pageRows + 2}`);
  // Opened below the list, it is brought into view.
  await waitFor(() => expect(opened.getBoundingClientRect().bottom).toBeLessThanOrEqual(window.innerHeight + 1));
  expect(opened.getBoundingClientRect().top).toBeGreaterThanOrEqual(0);
});

it('a firehose run that asks for 10,000 events shows how many arrived, while it streams and once it is done', async () => {
  const request = runRequest('platform', 'stream', { id: 'firehose', name: 'Firehose' }, { input: { count: 10_000 } });
  const expected = expectedEventsOf(request.body);
  const log = new StreamLog('platform');
  const view = render(<StreamOutput log={log} state={streaming} durationMs={undefined} expectedEvents={expected} />);
  const seen: string[] = [];
  // What each render showed (a query by text here would walk the whole page at every render).
  const observer = new MutationObserver(() => {
    const text = view.container.querySelector('.stream-progress')?.textContent;
    if (text && seen.at(-1) !== text) seen.push(text);
  });
  observer.observe(view.container, { subtree: true, childList: true, characterData: true });
  const end = await sendStreamRun({ baseUrl: '', token: DEMO.agents }, request, { onOpen: (meta) => log.open(meta), onEvent: (e) => log.event(e) }, new AbortController().signal);
  expect(end).toEqual({ kind: 'closed' });
  log.finish();
  view.rerender(<StreamOutput log={log} state={done} durationMs={0} expectedEvents={expected} />);
  await waitFor(() => expect(screen.getByText(/ of 10,000 events/).textContent).toBe('10,000 of 10,000 events (100%)'));
  observer.disconnect();
  // While it streamed: part of the count, with its share.
  expect(seen.some((t) => /^[1-9][\d,]* of 10,000 events \(\d{1,2}%\)$/.test(t)), seen.join(' | ')).toBe(true);
  const bar = screen.getByRole('progressbar', { name: 'Events received' });
  expect([bar.getAttribute('value'), bar.getAttribute('max')]).toEqual(['10000', '10000']);
  expect(within(view.container).queryByText(/ of 10,000 events \(\d+%\)/)).toBeTruthy();
});
