import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it, vi } from 'vitest';
import type { ToolApproval } from '../../../contract/durable-runs';
import { Approvals } from './approvals';

afterEach(() => cleanup());

const NOW = Date.parse('2026-11-23T10:00:00Z');
const flight: ToolApproval = {
  interaction_id: 'int_1',
  type: 'TOOL_APPROVAL',
  tool_id: 'travel.book_flight',
  display_name: 'Book flight',
  description: 'Books the flight.',
  arguments: { flight: 'LH 2033', fare_eur: 189 },
  expires_at: '2026-11-23T11:00:00Z',
};
const hotel: ToolApproval = { interaction_id: 'int_2', type: 'TOOL_APPROVAL', display_name: 'Book hotel', description: 'Reserves the room.', arguments: {} };

it('shows each request with its arguments and expiry, and submits only when every one has a decision', async () => {
  const user = userEvent.setup();
  const onSubmit = vi.fn();
  render(<Approvals interactions={[flight, hotel]} now={NOW} submitting={false} onSubmit={onSubmit} />);
  const card = screen.getByRole('listitem', { name: 'Tool Book flight' });
  expect(within(card).getByLabelText('Arguments of Book flight').textContent).toBe(JSON.stringify(flight.arguments, null, 2));
  expect(card.textContent).toContain('This request expires in 1 h 00 min.');
  const submit = screen.getByRole('button', { name: 'Submit decisions' });
  expect((submit as HTMLButtonElement).disabled).toBe(true);
  await user.click(within(card).getByRole('radio', { name: 'Approve' }));
  expect((submit as HTMLButtonElement).disabled).toBe(true);
  expect(screen.getByText('One request still needs a decision.')).toBeTruthy();
  await user.click(within(screen.getByRole('listitem', { name: 'Tool Book hotel' })).getByRole('radio', { name: 'Reject' }));
  await user.click(submit);
  expect(onSubmit).toHaveBeenCalledTimes(1);
  expect(onSubmit).toHaveBeenCalledWith({ int_1: 'APPROVE', int_2: 'REJECT' });
});

it('decides a single request in one click: Approve or Reject sends it at once', async () => {
  const user = userEvent.setup();
  const onSubmit = vi.fn();
  render(<Approvals interactions={[hotel]} now={NOW} submitting={false} onSubmit={onSubmit} />);
  expect(screen.queryByRole('radio')).toBeNull();
  expect(screen.queryByRole('button', { name: /Submit/ })).toBeNull();
  await user.click(screen.getByRole('button', { name: 'Reject' }));
  expect(onSubmit).toHaveBeenCalledWith({ int_2: 'REJECT' });
});

it('says so while submitting and does not allow a second click, for one request or a batch', () => {
  const { unmount } = render(<Approvals interactions={[hotel]} now={NOW} submitting onSubmit={() => undefined} />);
  expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Approve' }).disabled).toBe(true);
  expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Reject' }).disabled).toBe(true);
  expect(screen.getByRole('status').textContent).toBe('Sending your decision…');
  unmount();
  render(<Approvals interactions={[flight, hotel]} now={NOW} submitting onSubmit={() => undefined} />);
  expect((screen.getByRole('button', { name: 'Submitting…' }) as HTMLButtonElement).disabled).toBe(true);
});

it('shows an interaction type it does not know as it came', () => {
  render(<Approvals interactions={[{ ...hotel, type: 'FORM_INPUT' }]} now={NOW} submitting={false} onSubmit={() => undefined} />);
  expect(screen.getByText(/Interaction type “FORM_INPUT”/)).toBeTruthy();
});
