import type { Connection } from '../../lib/connection';
import { streamRun, type EventReader, type StreamEnd, type StreamHandlers } from '../../lib/sse';
import type { RunRequest } from '../run-request';

/** A stream-mode run: its one POST, read as server-sent events until it ends. Never retried. */
export function sendStreamRun(connection: Connection, request: RunRequest, handlers: StreamHandlers, signal: AbortSignal, reader?: EventReader): Promise<StreamEnd> {
  return streamRun(connection, request.path, request.body, handlers, signal, request.headers, reader);
}
