/**
 * The stream view as a keyboard and screen-reader user meets it: the timeline and its event
 * detail. Without the console's styles the timeline has no height and renders every row, so
 * logs here stay small; what depends on layout (scrolling, column widths, a 20,000-event run's
 * progress) is tested with the styles in src/app/stream-view.test.tsx.
 */
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import type { RunState } from '../../../engine/run-machine';
import { StreamLog } from '../../../engine/stream-log';
import { StreamOutput } from './stream-output';

afterEach(() => cleanup());

const msg = (text: string) => JSON.stringify({ messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text }] }] });
const done: RunState = { status: 'done', transitions: [] };

/** A finished stream of `n` firehose-like message events, fed by hand. */
function fedLog(n: number, extra: { event: string; data: string }[] = []): StreamLog {
  const log = new StreamLog('platform', 0);
  log.open({ method: 'POST', url: '/api/agents/firehose/runs', status: 200, durationMs: 3, headers: [], receivedAt: 0 });
  for (let i = 1; i <= n; i++) log.event({ id: String(i), event: 'message', data: msg(`token ${i} `) }, i);
  for (const e of extra) log.event({ id: String(log.events.length + 1), ...e }, log.events.length + 1);
  log.finish();
  return log;
}

/** The row the timeline says is active (aria-activedescendant), by its label. */
function activeRow(timeline: HTMLElement): string | null {
  const id = timeline.getAttribute('aria-activedescendant');
  return id ? (document.getElementById(id)?.getAttribute('aria-label') ?? null) : null;
}

it('the timeline is one Tab stop; the arrow keys, Home and End move its active row', async () => {
  const user = userEvent.setup();
  render(<StreamOutput log={fedLog(200)} state={done} durationMs={0} />);
  const follow = screen.getByRole('checkbox', { name: 'Follow new events' });
  follow.focus();
  await user.tab();
  const timeline = screen.getByLabelText('200 events');
  expect(document.activeElement).toBe(timeline);
  // The next Tab leaves the timeline: its 200 rows are not 200 Tab stops.
  await user.tab();
  expect(timeline.contains(document.activeElement)).toBe(false);
  await user.tab({ shift: true });
  expect(document.activeElement).toBe(timeline);

  await user.keyboard('{Home}');
  expect(activeRow(timeline)).toMatch(/^1\. message/);
  await user.keyboard('{ArrowDown}{ArrowDown}');
  expect(activeRow(timeline)).toMatch(/^3\. message/);
  await user.keyboard('{ArrowUp}');
  expect(activeRow(timeline)).toMatch(/^2\. message/);
  await user.keyboard('{End}');
  expect(activeRow(timeline)).toMatch(/^200\. message/);
  await user.keyboard('{ArrowDown}');
  expect(activeRow(timeline)).toMatch(/^200\. message/);
  // Moving does not open anything: that is Enter's job.
  expect(screen.queryByLabelText(/^Event \d+$/)).toBeNull();
});

it('Enter or Space opens the active row’s event; a click on a row still does', async () => {
  const user = userEvent.setup();
  render(<StreamOutput log={fedLog(30)} state={done} durationMs={0} />);
  const timeline = screen.getByLabelText('30 events');
  timeline.focus();
  await user.keyboard('{Home}{ArrowDown}{ArrowDown}{Enter}');
  expect(within(screen.getByLabelText('Event 3')).getByText(/"text": "token 3 "/)).toBeTruthy();
  await user.keyboard('{ArrowDown} ');
  expect(screen.getByLabelText('Event 4')).toBeTruthy();
  expect(screen.queryByLabelText('Event 3')).toBeNull();
  expect(document.activeElement).toBe(timeline);

  await user.click(screen.getByRole('option', { name: /^28\. / }));
  expect(screen.getByLabelText('Event 28')).toBeTruthy();
  expect(activeRow(timeline)).toMatch(/^28\. /);
  expect(screen.getByRole('option', { name: /^28\. /, selected: true })).toBeTruthy();
});

it('each row previews its data on one line (a message’s text, other JSON compacted) and is labelled for screen readers', () => {
  render(<StreamOutput log={fedLog(3, [{ event: 'agent.thinking', data: '{\n  "step": "planning"\n}' }, { event: 'message', data: '{"messages": [unterminated' }])} state={done} durationMs={0} />);
  const timeline = screen.getByLabelText('5 events');
  expect(within(timeline).getByText('token 2')).toBeTruthy();
  expect(within(timeline).getByText('⚠ {"step":"planning"}')).toBeTruthy();
  const rows = within(timeline).getAllByRole('option');
  expect(rows.map((r) => r.getAttribute('aria-label'))).toEqual([
    expect.stringMatching(/^1\. message, \+1 ms, \d+ bytes: token 1$/),
    expect.stringMatching(/^2\. message, \+2 ms, \d+ bytes: token 2$/),
    expect.stringMatching(/^3\. message, \+3 ms, \d+ bytes: token 3$/),
    expect.stringMatching(/^4\. agent\.thinking, \+4 ms, \d+ bytes, with a warning: \{"step":"planning"\}$/),
    expect.stringMatching(/^5\. message, \+5 ms, \d+ bytes, with a warning: \{"messages": \[unterminated$/),
  ]);
  expect(rows.map((r) => r.getAttribute('aria-posinset'))).toEqual(['1', '2', '3', '4', '5']);
  expect(rows.every((r) => r.getAttribute('aria-setsize') === '5')).toBe(true);
});

it('shows no progress for a run that names no count', () => {
  render(<StreamOutput log={fedLog(3)} state={done} durationMs={0} />);
  expect(screen.queryByRole('progressbar')).toBeNull();
  expect(screen.queryByText(/ of \d+ events/)).toBeNull();
});

it('the figures over the transcript write their milliseconds alike: "3,148 ms" to the first event beside "3,466 ms" in all', () => {
  const log = new StreamLog('platform', 0);
  log.open({ method: 'POST', url: '/api/agents/echo-assistant/runs', status: 200, durationMs: 3, headers: [], receivedAt: 0 });
  log.event({ id: '1', event: 'message', data: msg('late') }, 3_148);
  log.finish();
  render(<StreamOutput log={log} state={done} durationMs={3_466} />);
  const figures = screen.getByText('First event', { selector: 'dt' }).closest('dl')!;
  const figure = (name: string) => within(figures).getByText(name, { selector: 'dt' }).nextElementSibling?.textContent;
  expect(figure('First event')).toBe('3,148 ms');
  expect(figure('Duration')).toBe('3,466 ms');
});
