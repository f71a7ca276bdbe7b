import type { RunFailure } from './run-machine';

/** A legacy stream has no error event: a failed run ends with a message whose text is the error. */
export const LEGACY_ERROR_TEXT = /^\s*error\b[:\s]/i;

/**
 * The failure a legacy stream told in its last message, if it did. Only at the end: text that
 * starts with "Error" mid-stream is the agent talking about errors, and only the legacy API
 * fails this way (the platform API has run.failed).
 */
export function legacyFailureOf(lastMessageText: string, requestId?: string): RunFailure | undefined {
  if (!LEGACY_ERROR_TEXT.test(lastMessageText)) return undefined;
  return { title: 'the agent’s last message is an error', detail: lastMessageText.trim(), requestId };
}
