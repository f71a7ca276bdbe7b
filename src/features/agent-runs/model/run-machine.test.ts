import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/api-client';
import { initialRunState, isActive, runReducer, TERMINAL_STATUSES, type RunAction, type RunState, type RunStatus } from './run-machine';

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

  it('never leaves a terminal state, whatever comes after', () => {
    const every: RunAction[] = [
      send,
      { type: 'open', at: 9, meta },
      { type: 'wait', at: 9 },
      { type: 'close', at: 9 },
      { type: 'close', at: 9, failure },
      { type: 'answer', at: 9, meta },
      { type: 'refuse', at: 9, error: refusal },
      { type: 'stop', at: 9, note: 'x' },
      { type: 'interrupt', at: 9, note: 'x' },
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
    expect([...reached].sort()).toEqual(['done', 'failed', 'idle', 'interrupted', 'refused', 'sending', 'stopped', 'streaming', 'waiting']);
    expect(isActive('sending') && isActive('streaming') && isActive('waiting')).toBe(true);
    expect(TERMINAL_STATUSES.some(isActive)).toBe(false);
  });
});
