/** What the service's answers to a durable run's actions mean, in words for the person who clicked. */

import type { RunConflictReason } from '../../../contract/durable-runs';
import { isProblemDetail } from '../../../contract/problem';
import { ApiError } from '../../../lib/api-client';
import { retryAfterNote } from '../../../lib/retry-after';

/** What each 409 `reason` of the reference service means. */
const CONFLICT_TEXT: Record<RunConflictReason, string> = {
  not_cancellable: 'The run is in a step that cannot be interrupted, or nothing is executing it any more.',
  duplicate_interaction: 'The same request was answered twice in one submission.',
  conflicting_decision: 'Someone already decided otherwise on this request.',
  stale_decision: 'These requests were already answered, by you elsewhere or by someone else.',
  incomplete_decisions: 'Every pending request needs a decision in the same submission.',
  not_pending: 'The run is no longer waiting for these decisions.',
  approval_expired: 'The request expired before the decision arrived.',
};

export function explainActionError(error: unknown, action: string): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.status === 409) {
    const reason = (error.body as { reason?: string } | undefined)?.reason;
    const why = reason && reason in CONFLICT_TEXT ? `${CONFLICT_TEXT[reason as RunConflictReason]} ` : '';
    return `409 Conflict: ${error.detail} ${why}The run has moved on since it was last read; it was read again, so what you see now is current.`;
  }
  // A 429 or 503 the engine stopped waiting out (past its bound) says how long the service asked for.
  const note = error.status === 429 || error.status === 503 ? retryAfterNote(error.header('retry-after')) : '';
  return `${action} failed: ${error.status ? `${error.status} ` : ''}${error.title}: ${error.detail}${note && ` ${note}`}`;
}

/** The problem code with which the reference service refuses a stream or wait run of an agent that needs a durable run. */
export const DURABLE_RUN_REQUIRED = 'durable_run_required';

/**
 * A refusal that says the agent needs a durable run: the problem's code, or (the legacy API
 * answers a JSON string) a 409 whose text asks for execution_mode DURABLE.
 */
export function asksForDurableRun(error: ApiError): boolean {
  if (isProblemDetail(error.body)) return error.body.code === DURABLE_RUN_REQUIRED;
  return error.status === 409 && typeof error.body === 'string' && /"?execution_mode"?\W+"?DURABLE/i.test(error.body);
}
