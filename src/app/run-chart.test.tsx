/**
 * The run chart as a user meets it: the words a screen reader hears, the event under the
 * pointer, a click that opens that event in the timeline, and a live log drawn as it grows.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import type { RunState } from '../engine/run-machine';
import { StreamLog } from '../engine/stream-log';
import { StateChart } from '../features/insight/components/run-chart';
import { StreamOutput } from '../features/runs/components/stream-output';
import { renderWithSlots } from './test-slots';

afterEach(() => cleanup());

const msg = (text: string) => JSON.stringify({ messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text }] }] });
const done: RunState = { status: 'done', transitions: [] };
const streaming: RunState = { status: 'streaming', transitions: [] };

/** Events at the given ms (since the POST), fed by hand. */
function logWith(times: number[], finish = true): StreamLog {
  // A schedule that notifies at once: no frames to wait for in a test.
  const log = new StreamLog('platform', 0, (fn) => fn());
  log.open({ method: 'POST', url: '/api/agents/firehose/runs', status: 200, durationMs: 3, headers: [], receivedAt: 0 });
  times.forEach((at, i) => log.event({ id: String(i + 1), event: 'message', data: msg(`token ${i + 1} `) }, at));
  if (finish) log.finish();
  return log;
}

function pointAt(svg: Element, fraction: number) {
  const box = svg.getBoundingClientRect();
  return { clientX: box.left + box.width * fraction, clientY: box.top + box.height / 2 };
}

it('names the event under the pointer, and a click opens it in the timeline', () => {
  // 100 events over the first second, then one at 4 s after a silence.
  const log = logWith([...Array.from({ length: 100 }, (_, i) => 10 + i * 10), 4_000]);
  renderWithSlots(<StreamOutput log={log} state={done} durationMs={4_000} />);
  const chart = screen.getByTestId('stream-chart');
  expect(chart.getAttribute('aria-label')).toMatch(/^101 events, .* in 4\.00 s; first event after 10 ms; .*1 silence over 1,000 ms, the longest 3,000 ms before event 101 at 4\.00 s\.$/);
  expect(screen.getAllByTestId('chart-gap')).toHaveLength(1);
  fireEvent.pointerMove(chart, pointAt(chart, 0.999));
  expect(screen.getByText(/^At 4\.00 s: event 101, message/)).toBeTruthy();
  fireEvent.click(chart, pointAt(chart, 0.999));
  expect(document.querySelector('.event-detail')!.getAttribute('aria-label')).toBe('Event 101');
  expect(screen.getByRole('option', { selected: true }).getAttribute('aria-posinset')).toBe('101');
  // Leaving the chart, the readout goes back to the run's figures.
  fireEvent.pointerLeave(chart);
  expect(screen.getByText(/^First event after 10 ms · /)).toBeTruthy();
});

it('a live log is drawn as it grows, "so far" until it ends', () => {
  const log = logWith([20, 40], false);
  renderWithSlots(<StreamOutput log={log} state={streaming} durationMs={undefined} />);
  const chart = screen.getByTestId('stream-chart');
  expect(chart.getAttribute('aria-label')).toMatch(/^2 events, .* so far; first event after 20 ms/);
  act(() => log.event({ id: '3', event: 'message', data: msg('more') }, 60));
  expect(chart.getAttribute('aria-label')).toMatch(/^3 events, .* so far/);
  expect(document.querySelector('.chart-bars')!.getAttribute('d')).not.toBe('');
});

it('a durable run’s states on a time axis say how long it waited for approval', () => {
  const t0 = 1_000_000;
  render(
    <StateChart
      label="Over time"
      startedAt={t0}
      endAt={t0 + 5_000}
      transitions={[
        { status: 'sending', at: t0 },
        { status: 'RUNNING', at: t0 + 200 },
        { status: 'REQUIRES_INPUT', at: t0 + 1_000 },
        { status: 'REQUIRES_INPUT', at: t0 + 2_000 },
        { status: 'RUNNING', at: t0 + 4_000 },
        { status: 'SUCCEEDED', at: t0 + 5_000 },
      ]}
    />,
  );
  const bar = screen.getByTestId('state-chart');
  expect(bar.getAttribute('aria-label')).toMatch(/Waiting for your approval 3,000 ms, then .*; 3,000 ms waiting for approval\.$/);
  // Two reads of the same state are one span.
  expect(bar.querySelectorAll('.state-span.approval')).toHaveLength(1);
  expect(screen.getByText(/3,000 ms waiting for your approval/)).toBeTruthy();
});

it('the keyboard moves through the run in time and Enter opens the event, as the pointer does', async () => {
  const user = userEvent.setup();
  const log = logWith([...Array.from({ length: 100 }, (_, i) => 10 + i * 10), 4_000]);
  renderWithSlots(<StreamOutput log={log} state={done} durationMs={4_000} />);
  const slider = screen.getByRole('slider', { name: /Over time: the run's events in time/ });
  slider.focus();
  await user.keyboard('{End}');
  expect(slider.getAttribute('aria-valuetext')).toMatch(/^At 4\.00 s: event 101, message/);
  await user.keyboard('{Enter}');
  expect(document.querySelector('.event-detail')!.getAttribute('aria-label')).toBe('Event 101');
  await user.keyboard('{Home}');
  expect(slider.getAttribute('aria-valuenow')).toBe('1');
  // An arrow moves a hundredth of the axis (40 ms here: four events of this run), at least one event.
  await user.keyboard('{ArrowRight}');
  expect(slider.getAttribute('aria-valuenow')).toBe('5');
  await user.keyboard('{ArrowLeft}{ArrowLeft}');
  expect(slider.getAttribute('aria-valuenow')).toBe('1');
  await user.keyboard('{ArrowRight}{Enter}');
  expect(document.querySelector('.event-detail')!.getAttribute('aria-label')).toBe('Event 5');
});

it('Page Down and the down arrow move the chart to later events, as they move the timeline down to later rows', async () => {
  const user = userEvent.setup();
  // 101 events, one every 10 ms: a tenth of the axis (100 ms) is ten events.
  const log = logWith(Array.from({ length: 101 }, (_, i) => i * 10));
  renderWithSlots(<StreamOutput log={log} state={done} durationMs={1_000} />);
  const slider = screen.getByRole('slider', { name: /Over time: the run's events in time/ });
  slider.focus();
  await user.keyboard('{Home}{PageDown}');
  expect(slider.getAttribute('aria-valuenow')).toBe('11');
  await user.keyboard('{ArrowDown}');
  expect(slider.getAttribute('aria-valuenow')).toBe('12');
  await user.keyboard('{ArrowUp}{PageUp}');
  expect(slider.getAttribute('aria-valuenow')).toBe('1');
  // The timeline below: Page Down moves to later rows too.
  const timeline = screen.getByLabelText('101 events');
  timeline.focus();
  await user.keyboard('{Home}{PageDown}');
  const active = document.getElementById(timeline.getAttribute('aria-activedescendant')!)!;
  expect(Number(/^(\d+)\. /.exec(active.getAttribute('aria-label')!)![1])).toBeGreaterThan(1);
});

it('opening the same event from the chart a second time brings it into view again', async () => {
  const user = userEvent.setup();
  const log = logWith(Array.from({ length: 300 }, (_, i) => 10 + i * 10));
  renderWithSlots(<StreamOutput log={log} state={done} durationMs={3_010} />);
  const slider = screen.getByRole('slider', { name: /Over time: the run's events in time/ });
  const list = document.querySelector('.timeline') as HTMLElement;
  // The page's stylesheet is not loaded here: the list gets the bounded height it has in the app.
  Object.assign(list.style, { height: '200px', overflowY: 'auto' });
  await new Promise((r) => setTimeout(r, 50));
  slider.focus();
  await user.keyboard('{End}{Enter}');
  expect(document.querySelector('.event-detail')!.getAttribute('aria-label')).toBe('Event 300');
  await new Promise((r) => setTimeout(r, 50));
  const first = list.scrollTop;
  expect(first).toBeGreaterThan(0);
  // The reader scrolls the timeline up to look at other events...
  list.scrollTop = 0;
  fireEvent.scroll(list);
  await new Promise((r) => setTimeout(r, 50));
  expect(list.scrollTop).toBe(0);
  // ...and opens event 300 from the chart again: the timeline brings it back into view.
  slider.focus();
  await user.keyboard('{Enter}');
  await new Promise((r) => setTimeout(r, 50));
  expect(list.scrollTop).toBe(first);
});

it('a durable run whose end this browser saw late is drawn to its duration, the figure its head and history show', () => {
  const t0 = 2_000_000;
  render(
    <StateChart
      label="Over time"
      startedAt={t0}
      endAt={t0 + 4_500}
      transitions={[
        { status: 'sending', at: t0 },
        { status: 'RUNNING', at: t0 + 200 },
        // Read a little after the service ended it.
        { status: 'SUCCEEDED', at: t0 + 5_000 },
      ]}
    />,
  );
  expect(screen.getByTestId('state-chart').getAttribute('aria-label')).toBe('Sending… 200 ms, then Running 4,300 ms, then Succeeded.');
  expect(document.querySelector('.state-chart .chart-axis')!.textContent).toContain('4.50 s');
});

it('a run with no events says so, and no size that would contradict its answer’s', () => {
  const log = logWith([]);
  renderWithSlots(<StreamOutput log={log} state={done} durationMs={40} />);
  // Its answer's size is told beside the chart (a refusal's body): the chart tells events only.
  expect(document.body.textContent).not.toMatch(/0 B in all|0 B of events/);
  expect(screen.getByText('No events')).toBeTruthy();
});
