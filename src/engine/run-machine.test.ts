import { describe, expect, it } from 'vitest';
import { ApiError } from '../lib/api-client';
import type { DurableRun } from '../contract/durable-runs';
import { initialRunState, isFollowed, isInFlight, runReducer, TERMINAL_STATUSES, type RunAction, type RunState, type RunStatus } from './run-machine';

const meta = { method: 'POST', url: '/api/agents/a/runs', status: 200, durationMs: 3, headers: [] as [string, string][], receivedAt: 0 };
const failure = { title: 'Spend Limit Exceeded', detail: 'limit', code: 'spend_limit_exceeded' };
const refusal = new ApiError('http', 403, 'Insufficient Permissions', 'needs agents.run', undefined, undefined);

function play(...actions: RunAction[]): RunState {
  return actions.reduce(runReducer, initialRunState);
}

const send: RunAction = { type: 'send', at: 1 };

describe('run state machine', () => {
  it('streams: sending → streaming → done, each transition logged with its time', () => {
    const s = play(send, { type: 'open', at: 2, meta }, { type: 'close', at: 9 });
    expect(s.status).toBe('done');
    expect(s.transitions).toEqual([
      { status: 'sending', at: 1 },
      { status: 'streaming', at: 2 },
      { status: 'done', at: 9 },
    ]);
    expect(s.meta).toBe(meta);
  });

  it('waits: sending → waiting → done, or failed when the answer reports an error', () => {
    expect(play(send, { type: 'wait', at: 2 }, { type: 'answer', at: 5, meta }).status).toBe('done');
    const failed = play(send, { type: 'wait', at: 2 }, { type: 'answer', at: 5, meta, failure });
    expect(failed.status).toBe('failed');
    expect(failed.failure).toBe(failure);
  });

  it('fails a stream that reported a failure, whether it then closed or broke', () => {
    expect(play(send, { type: 'open', at: 2, meta }, { type: 'close', at: 3, failure }).status).toBe('failed');
    const broke = play(send, { type: 'open', at: 2, meta }, { type: 'interrupt', at: 3, note: 'network error', failure });
    expect(broke.status).toBe('failed');
    expect(broke.note).toBe('network error');
  });

  it('interrupts a stream whose connection broke with no failure reported', () => {
    const s = play(send, { type: 'open', at: 2, meta }, { type: 'interrupt', at: 3, note: 'network error' });
    expect(s.status).toBe('interrupted');
    expect(s.transitions.at(-1)).toEqual({ status: 'interrupted', at: 3, note: 'network error' });
  });

  it('refuses before the stream starts or while waiting, keeping the error and its response', () => {
    expect(play(send, { type: 'refuse', at: 2, error: refusal })).toMatchObject({ status: 'refused', refusal });
    expect(play(send, { type: 'wait', at: 2 }, { type: 'refuse', at: 3, error: refusal }).status).toBe('refused');
  });

  it('stops from any active state, and the first ending wins over a late event', () => {
    for (const path of [[send], [send, { type: 'open', at: 2, meta }], [send, { type: 'wait', at: 2 }]] as RunAction[][]) {
      const stopped = play(...path, { type: 'stop', at: 5, note: 'Stopped by you' });
      expect(stopped.status).toBe('stopped');
      expect(runReducer(stopped, { type: 'close', at: 6 })).toBe(stopped);
      expect(runReducer(stopped, { type: 'answer', at: 6, meta })).toBe(stopped);
      expect(runReducer(stopped, { type: 'refuse', at: 6, error: refusal })).toBe(stopped);
    }
  });

  it('ignores actions that do not fit the state, returning the same object', () => {
    const idle = initialRunState;
    expect(runReducer(idle, { type: 'open', at: 1, meta })).toBe(idle);
    expect(runReducer(idle, { type: 'stop', at: 1, note: 'x' })).toBe(idle);
    const sending = play(send);
    expect(runReducer(sending, send)).toBe(sending);
    expect(runReducer(sending, { type: 'close', at: 2 })).toBe(sending);
    const streaming = play(send, { type: 'open', at: 2, meta });
    expect(runReducer(streaming, { type: 'wait', at: 3 })).toBe(streaming);
    expect(runReducer(streaming, { type: 'refuse', at: 3, error: refusal })).toBe(streaming);
    const done = play(send, { type: 'open', at: 2, meta }, { type: 'close', at: 3 });
    for (const a of [send, { type: 'open', at: 4, meta }, { type: 'interrupt', at: 4, note: 'x' }, { type: 'stop', at: 4, note: 'x' }] as RunAction[]) {
      expect(runReducer(done, a)).toBe(done);
    }
  });

  it('never leaves a terminal state, whatever comes after, for every kind of run', () => {
    const every: RunAction[] = [
      send,
      { type: 'open', at: 9, meta },
      { type: 'wait', at: 9 },
      { type: 'close', at: 9 },
      { type: 'close', at: 9, failure },
      { type: 'answer', at: 9, meta },
      { type: 'refuse', at: 9, error: refusal },
      { type: 'fail', at: 9, failure },
      { type: 'stop', at: 9, note: 'x' },
      { type: 'interrupt', at: 9, note: 'x' },
      ...STATES.map((state) => observed(state)),
      observed('SOMETHING_NEW'),
      { type: 'read-failed', at: 9, error: refusal },
      { type: 'decided', at: 9, decisions: [{ name: 'Book flight', decision: 'APPROVE' }] },
      { type: 'cancel-requested', at: 9 },
    ];
    const reached = new Set<RunStatus>();
    const walk = (state: RunState, depth: number) => {
      reached.add(state.status);
      if (TERMINAL_STATUSES.includes(state.status)) {
        for (const a of every) expect(runReducer(state, a)).toBe(state);
        return;
      }
      if (depth === 0) return;
      for (const a of every) {
        const next = runReducer(state, a);
        if (next !== state) walk(next, depth - 1);
      }
    };
    walk(initialRunState, 4);
    expect([...reached].sort()).toEqual(
      ['CANCELLED', 'CANCELLING', 'EXPIRED', 'FAILED', 'QUEUED', 'REQUIRES_INPUT', 'RUNNING', 'SUCCEEDED', 'done', 'failed', 'idle', 'interrupted', 'refused', 'sending', 'stopped', 'streaming', 'waiting'],
    );
    expect(isInFlight('sending') && isInFlight('streaming') && isInFlight('waiting')).toBe(true);
    expect(TERMINAL_STATUSES.some((s) => isInFlight(s) || isFollowed(s))).toBe(false);
  });
});

const STATES = ['QUEUED', 'RUNNING', 'REQUIRES_INPUT', 'CANCELLING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED'];

function durableRun(state: string, extra: Partial<DurableRun> = {}): DurableRun {
  return { run_id: 'run_1', agent_id: 'a', state, created_at: '2026-11-23T10:00:00Z', updated_at: '2026-11-23T10:00:01Z', pending_interactions: [], ...extra };
}

function observed(state: string, extra: Partial<DurableRun> = {}, at = 9): RunAction {
  return { type: 'observe', at, snapshot: { run: durableRun(state, extra), requestId: 'req', readAt: at } };
}

describe('a durable run in the same machine', () => {
  it('goes from its POST to the service’s states, each one it saw logged once, to a final one', () => {
    const s = play(send, { type: 'wait', at: 2 }, observed('QUEUED', {}, 3), observed('QUEUED', {}, 4), observed('RUNNING', {}, 5), observed('SUCCEEDED', {}, 8));
    expect(s.status).toBe('SUCCEEDED');
    expect(s.transitions.map((t) => [t.status, t.at])).toEqual([
      ['sending', 1],
      ['waiting', 2],
      ['QUEUED', 3],
      ['RUNNING', 5],
      ['SUCCEEDED', 8],
    ]);
    expect(s.durable?.readAt).toBe(8);
  });

  it('keeps a terminal state final: a later read saying otherwise changes nothing', () => {
    const cancelled = play(send, { type: 'wait', at: 2 }, observed('RUNNING', {}, 3), observed('CANCELLED', {}, 4));
    expect(runReducer(cancelled, observed('FAILED', { error: { code: 'execution_deadline_exceeded', message: 'late' } }))).toBe(cancelled);
    expect(runReducer(cancelled, observed('RUNNING'))).toBe(cancelled);
  });

  it('only moves forward in its lifecycle, whatever the clocks say: a read stamped the same millisecond as a cancellation leaves it Cancelling', () => {
    const same = '2026-11-23T10:00:05.000Z';
    const cancelling = play(send, { type: 'wait', at: 2 }, observed('RUNNING', {}, 3), observed('CANCELLING', { updated_at: same }, 4));
    expect(runReducer(cancelling, observed('RUNNING', { updated_at: same }, 5))).toBe(cancelling);
    expect(runReducer(cancelling, observed('QUEUED', { updated_at: '2026-11-23T10:00:09Z' }, 5))).toBe(cancelling);
    const running = play(send, { type: 'wait', at: 2 }, observed('RUNNING', {}, 3));
    expect(runReducer(running, observed('QUEUED', { updated_at: '2026-11-23T10:00:09Z' }, 5))).toBe(running);
    // Running and waiting for approval take turns, and the way to the end stays open.
    const paused = runReducer(running, observed('REQUIRES_INPUT', { updated_at: '2026-11-23T10:00:02Z' }, 4));
    expect(runReducer(paused, observed('RUNNING', { updated_at: '2026-11-23T10:00:03Z' }, 5)).status).toBe('RUNNING');
    expect(runReducer(cancelling, observed('CANCELLED', { updated_at: same }, 6)).status).toBe('CANCELLED');
  });

  it('tells a failed run’s error as its failure', () => {
    const s = play(send, { type: 'wait', at: 2 }, observed('FAILED', { error: { code: 'tool_execution_failed', message: 'quota exceeded' } }));
    expect(s.failure).toEqual({ title: 'tool_execution_failed', detail: 'quota exceeded', code: 'tool_execution_failed' });
  });

  it('logs decisions and a cancellation asked for among its states, without changing the state', () => {
    const paused = play(send, { type: 'wait', at: 2 }, observed('REQUIRES_INPUT', {}, 3));
    const decided = runReducer(paused, { type: 'decided', at: 4, decisions: [{ name: 'Book flight', decision: 'APPROVE' }, { name: 'Book hotel', decision: 'REJECT' }] });
    expect(decided.status).toBe('REQUIRES_INPUT');
    expect(decided.transitions.at(-1)).toEqual({
      status: 'REQUIRES_INPUT',
      at: 4,
      note: 'You approved “Book flight”, rejected “Book hotel”.',
      decisions: [
        { name: 'Book flight', decision: 'APPROVE' },
        { name: 'Book hotel', decision: 'REJECT' },
      ],
    });
    const running = runReducer(decided, observed('RUNNING', {}, 5));
    expect(runReducer(running, { type: 'cancel-requested', at: 6 }).transitions.at(-1)?.note).toBe('You asked the service to cancel the run.');
    // A decision on a run that is not paused is not one.
    expect(runReducer(running, { type: 'decided', at: 6, decisions: [] })).toBe(running);
  });

  it('shows a state it does not know as it came, keeping the last known one', () => {
    const running = play(send, { type: 'wait', at: 2 }, observed('RUNNING', {}, 3));
    const odd = runReducer(running, observed('WARMING_UP', {}, 4));
    expect(odd.status).toBe('RUNNING');
    expect(odd.unknownState).toBe('WARMING_UP');
    expect(runReducer(odd, observed('SUCCEEDED', {}, 5)).unknownState).toBeUndefined();
  });

  it('opened by its id: idle until the first read, refused when it cannot be read; a failed read later keeps the run', () => {
    expect(runReducer(initialRunState, observed('REQUIRES_INPUT')).status).toBe('REQUIRES_INPUT');
    const unreadable = runReducer(initialRunState, { type: 'read-failed', at: 2, error: refusal });
    expect(unreadable).toMatchObject({ status: 'refused', refusal });
    const running = runReducer(initialRunState, observed('RUNNING'));
    const later = runReducer(running, { type: 'read-failed', at: 3, error: refusal });
    expect(later.status).toBe('RUNNING');
    expect(later.readError).toBe(refusal);
    expect(runReducer(later, observed('RUNNING', {}, 4)).readError).toBeUndefined();
  });

  it('fails the client part when the 201 cannot be followed (no run id)', () => {
    const s = play(send, { type: 'wait', at: 2 }, { type: 'fail', at: 3, failure });
    expect(s.status).toBe('failed');
    expect(runReducer(s, observed('RUNNING'))).toBe(s);
  });
});
