/** Server-sent event names and payloads of the agent run streams (docs/api.md, "Server-sent events"). */

import type { Message } from './agents.ts';
import type { ProblemDetail } from './problem.ts';

export const SSE_CONTENT_TYPE = 'text/event-stream';

/** `event: message`, on both flavours: the next fragment of the answer. */
export interface MessageEventData {
  messages: Message[];
}

/** `event: run.failed`, platform flavour only: the terminal event of a failed run. */
export interface RunFailedEventData {
  error: Omit<ProblemDetail, 'documentation_url' | 'errors'> & { documentation_url?: string };
}

export const RUN_FAILED_EVENT = 'run.failed';
export const MESSAGE_EVENT = 'message';
