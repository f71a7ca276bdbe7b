/** What a run shows of an answer too large to show whole, and how it says so (issue 27). */
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it, vi } from 'vitest';
import type { RunWaitResponse } from '../../../contract/agents';
import type { ApiResponse } from '../../../lib/api-client';
import { MAX_FULL_DATA_BYTES, StreamLog } from '../../../engine/stream-log';
import { EventDetail } from './event-detail';
import { WaitOutput } from './wait-output';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const megabyteEvent = (n: number) => JSON.stringify({ messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text: `Event ${n}. ${'x'.repeat(1024 * 1024)}` }] }] });

it('shows a cut event’s beginning, says so, and downloads its full data as received', async () => {
  const user = userEvent.setup();
  const log = new StreamLog('platform', 0, () => undefined);
  const data = megabyteEvent(1);
  log.event({ id: '1', event: 'message', data }, 5);
  const created = vi.spyOn(URL, 'createObjectURL');
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
  render(<EventDetail entry={log.events[0]!} stream={undefined} />);
  const detail = screen.getByLabelText('Event 1');
  expect(within(detail).getByRole('note').textContent).toMatch(/^✂ Cut: shown are the first 65,536 of its 1,048,\d{3} characters/);
  expect(detail.querySelector('pre')!.textContent).toHaveLength(65_536);
  await user.click(within(detail).getByRole('button', { name: 'Download the full data' }));
  const blob = created.mock.calls[0]![0] as Blob;
  expect(await blob.text()).toBe(data);
});

it('says when a cut event’s full data was not kept, past the run’s budget', () => {
  const log = new StreamLog('platform', 0, () => undefined);
  const data = megabyteEvent(0);
  const n = Math.floor(MAX_FULL_DATA_BYTES / data.length) + 1;
  for (let i = 1; i <= n; i++) log.event({ id: String(i), event: 'message', data }, i);
  render(<EventDetail entry={log.events[n - 1]!} stream={undefined} />);
  expect(screen.getByRole('note').textContent).toContain('Its full data is not kept: a run keeps the full data of cut events up to 64 MB in all');
  expect(screen.queryByRole('button', { name: 'Download the full data' })).toBeNull();
});

it('lists the first 500 messages of a long wait answer and says how many there are', async () => {
  const messages = Array.from({ length: 600 }, (_, i) => ({ role: 'GLEAN_AI' as const, content: [{ type: 'text' as const, text: `Message ${i + 1}.` }] }));
  const data: RunWaitResponse = { run: { agent_id: 'a', status: 'success' }, messages };
  const rawBody = JSON.stringify(data);
  const answer: ApiResponse<RunWaitResponse> = { method: 'POST', url: '/api/agents/a/runs', status: 200, durationMs: 5, headers: [['content-type', 'application/json']], rawBody, receivedAt: 0, data };
  render(<WaitOutput answer={answer} />);
  expect(screen.getByRole('note').textContent).toBe('✂ Shown are the first 500 of 600 messages; Copy transcript copies them all, and the Raw JSON tab has the whole answer.');
  const transcript = document.querySelector<HTMLElement>('div.transcript[aria-label="Transcript"]')!;
  expect(transcript.querySelectorAll('p')).toHaveLength(500);
  expect(transcript.textContent).toContain('Message 500.');
  expect(transcript.textContent).not.toContain('Message 501.');
});
