import { useCallback, useRef, useState, useSyncExternalStore } from 'react';
import type { RunWaitResponse } from '../../contract/agents';
import { ApiError, apiRequest, type ApiResponse } from '../../lib/api-client';
import type { Connection } from '../../lib/connection';
import { streamRun } from '../../lib/sse';
import { metaOf, saveRun, type HistoryEntry, type WaitStatus } from './history';
import type { RunRequest } from './run-request';
import { RunSession } from './run-session';

export interface WaitRun {
  kind: 'wait';
  request: RunRequest;
  startedAt: number;
  status: WaitStatus;
  response?: ApiResponse<RunWaitResponse>;
  error?: ApiError;
  durationMs?: number;
}

export interface StreamRun {
  kind: 'stream';
  request: RunRequest;
  startedAt: number;
  session: RunSession;
}

export type ActiveRun = WaitRun | StreamRun;

const noop = () => () => undefined;

function newId(): string {
  return `run_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Owns the run in flight: one at a time, one POST per start, an AbortController for Stop.
 * Components only render what it exposes.
 */
export function useRun(onSaved?: () => void) {
  const [run, setRun] = useState<ActiveRun | null>(null);
  const controller = useRef<AbortController | null>(null);
  const session = run?.kind === 'stream' ? run.session : null;
  // Re-render when the run changes status (opened, ended), not on every frame of events:
  // StreamOutput subscribes to those itself, so the page, its form and history stay still.
  useSyncExternalStore(session?.subscribe ?? noop, session ? () => session.status : () => 'idle');

  const inFlight = run !== null && (run.kind === 'stream' ? run.session.active : run.status === 'waiting');

  const start = useCallback(
    (connection: Connection, request: RunRequest, info: { agentId: string; agentName?: string; timeoutMs?: number }) => {
      if (controller.current) return false;
      const abort = new AbortController();
      controller.current = abort;
      const startedAt = Date.now();
      const base: Omit<HistoryEntry, 'status' | 'durationMs' | 'eventCount' | 'bytes' | 'transcript'> = {
        id: newId(),
        startedAt,
        agentId: info.agentId,
        agentName: info.agentName,
        request,
        baseUrl: connection.baseUrl,
      };
      const finish = () => {
        controller.current = null;
      };

      if (request.mode === 'stream') {
        const s = new RunSession(request.flavour);
        setRun({ kind: 'stream', request, startedAt, session: s });
        void streamRun(connection, request.path, request.body, { onOpen: (meta) => s.open(meta), onEvent: (e) => s.event(e) }, abort.signal).then(
          async (end) => {
            s.end(end);
            finish();
            await saveRun(
              {
                ...base,
                status: s.status,
                durationMs: s.durationMs,
                firstEventMs: s.firstEventMs,
                eventCount: s.events.length,
                bytes: s.bytes,
                transcript: s.transcriptText,
                failure: s.failure,
                problem: s.refusal?.message ?? s.interruption,
                meta: metaOf(s.meta ?? s.refusal?.meta),
              },
              { events: s.events },
            ).catch(() => undefined);
            onSaved?.();
          },
        );
        return true;
      }

      const timer = info.timeoutMs ? setTimeout(() => abort.abort('timeout'), info.timeoutMs) : undefined;
      setRun({ kind: 'wait', request, startedAt, status: 'waiting' });
      void apiRequest<RunWaitResponse>(connection, request.path, { method: 'POST', body: request.body, signal: abort.signal })
        .then(
          (response): WaitRun => ({
            kind: 'wait',
            request,
            startedAt,
            response,
            durationMs: response.durationMs,
            status: response.data?.run?.status === 'error' ? 'error' : 'success',
          }),
          (error: unknown): WaitRun => {
            const e = error instanceof ApiError ? error : new ApiError('network', 0, 'Error', String(error), undefined, undefined);
            const status: WaitStatus = e.kind === 'aborted' ? (abort.signal.reason === 'timeout' ? 'timeout' : 'cancelled') : 'refused';
            return { kind: 'wait', request, startedAt, error: e, status, durationMs: Date.now() - startedAt };
          },
        )
        .then(async (done) => {
          clearTimeout(timer);
          finish();
          setRun(done);
          const messages = done.response?.data?.messages ?? [];
          await saveRun(
            {
              ...base,
              status: done.status,
              durationMs: done.durationMs ?? 0,
              eventCount: 0,
              bytes: done.response?.rawBody.length ?? 0,
              transcript: messages.flatMap((m) => m.content?.map((b) => b.text) ?? []).join(''),
              problem: done.error?.message,
              meta: metaOf(done.response ?? done.error?.meta),
            },
            { result: done.response?.data ?? done.error?.body },
          ).catch(() => undefined);
          onSaved?.();
        });
      return true;
    },
    [onSaved],
  );

  const stop = useCallback(() => controller.current?.abort('stopped'), []);
  const clear = useCallback(() => {
    if (!controller.current) setRun(null);
  }, []);

  return { run, inFlight, start, stop, clear };
}
