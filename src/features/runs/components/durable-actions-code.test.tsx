import { expect, it } from 'vitest';
import type { DurableRun, ToolApproval } from '../../../contract/durable-runs';
import { durableActions } from './durable-actions-code';

const approval = (id: string, name: string): ToolApproval => ({ interaction_id: id, type: 'TOOL_APPROVAL', display_name: name, description: '', arguments: {} });
const run = (state: string, pending: ToolApproval[] = []): Pick<DurableRun, 'run_id' | 'state' | 'pending_interactions'> => ({
  run_id: 'run_1',
  state,
  pending_interactions: pending,
});
const labels = (r: ReturnType<typeof run>) => durableActions('expense-filer', r).map((a) => a.label);

it('a run paused on one approval: approve, reject, cancel or follow it', () => {
  expect(labels(run('REQUIRES_INPUT', [approval('int_1', 'Submit expense report')]))).toEqual(['Approve', 'Reject', 'Cancel', 'Follow it to its end (read only)']);
  const [approve, reject] = durableActions('expense-filer', run('REQUIRES_INPUT', [approval('int_1', 'Submit expense report')]));
  expect(approve!.call).toEqual({ op: 'respond', agentId: 'expense-filer', runId: 'run_1', responses: [{ interaction_id: 'int_1', decision: 'APPROVE' }] });
  expect(reject!.call).toEqual({ op: 'respond', agentId: 'expense-filer', runId: 'run_1', responses: [{ interaction_id: 'int_1', decision: 'REJECT' }] });
});

it('a run paused on two: all, each one alone (the other rejected in the same batch), none', () => {
  const actions = durableActions('trip-planner', run('REQUIRES_INPUT', [approval('int_f', 'Book flight'), approval('int_h', 'Book hotel')]));
  expect(actions.map((a) => a.label)).toEqual([
    'Approve all 2',
    'Approve only Book flight, reject the rest',
    'Approve only Book hotel, reject the rest',
    'Reject all 2',
    'Cancel',
    'Follow it to its end (read only)',
  ]);
  const onlyHotel = actions[2]!.call;
  expect(onlyHotel.op === 'respond' && onlyHotel.responses).toEqual([
    { interaction_id: 'int_f', decision: 'REJECT' },
    { interaction_id: 'int_h', decision: 'APPROVE' },
  ]);
});

it('a run at work can be followed or cancelled; one cancelling, ended, can only be followed; an unknown state is not taken for an end', () => {
  expect(labels(run('RUNNING'))).toEqual(['Follow it to its end (read only)', 'Cancel']);
  expect(labels(run('QUEUED'))).toEqual(['Follow it to its end (read only)', 'Cancel']);
  for (const state of ['CANCELLING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED']) expect(labels(run(state)), state).toEqual(['Follow it to its end (read only)']);
  expect(labels(run('ARCHIVING'))).toEqual(['Follow it to its end (read only)', 'Cancel']);
  expect(durableActions('long-runner', run('RUNNING')).map((a) => a.call)).toEqual([
    { op: 'follow', agentId: 'long-runner', runId: 'run_1' },
    { op: 'cancel', agentId: 'long-runner', runId: 'run_1' },
  ]);
});
