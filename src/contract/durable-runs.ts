/**
 * Wire types of durable runs, tool approvals and cancellation (API.md section 4b), written
 * from the official client @gleanwork/api-client 0.20.15's models (PlatformDurableAgentRun,
 * PlatformAgentRunToolApproval, PlatformAgentRunResponse, PlatformAgentRunResponsesRequest,
 * PlatformAgentRunCancellationRequest). Shared by the reference service and the console.
 */
import type { Message } from './agents.ts';

export {
  platformCancellationsPath,
  platformResponsesPath,
  platformRunPath,
  platformRunsPath,
  RUN_PATHS,
} from './run-paths.ts';

export const EXECUTION_MODES = ['REQUEST_BOUND', 'DURABLE'] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

/** The states the client knows today. */
export const KNOWN_RUN_STATES = [
  'QUEUED',
  'RUNNING',
  'REQUIRES_INPUT',
  'SUCCEEDED',
  'FAILED',
  'CANCELLING',
  'CANCELLED',
  'EXPIRED',
] as const;
export type KnownRunState = (typeof KNOWN_RUN_STATES)[number];
/** An open enum, as the client reads it: a state added later is shown, not an error. */
export type DurableRunState = KnownRunState | (string & {});

/** Work is (or should be) going on: polling is worth it and the deadline applies. */
export const ACTIVE_RUN_STATES: readonly KnownRunState[] = ['QUEUED', 'RUNNING', 'CANCELLING'];
/** Nothing will change any more. */
export const TERMINAL_RUN_STATES: readonly KnownRunState[] = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED'];

export function isKnownRunState(state: string): state is KnownRunState {
  return (KNOWN_RUN_STATES as readonly string[]).includes(state);
}

export function isActiveRunState(state: string): boolean {
  return (ACTIVE_RUN_STATES as readonly string[]).includes(state);
}

export function isTerminalRunState(state: string): boolean {
  return (TERMINAL_RUN_STATES as readonly string[]).includes(state);
}

/** Paused for tool approvals: not terminal, never expires. */
export function isPausedRunState(state: string): boolean {
  return state === 'REQUIRES_INPUT';
}

export const TOOL_APPROVAL = 'TOOL_APPROVAL';

/** One pending approval of a persisted tool invocation and its arguments. */
export interface ToolApproval {
  interaction_id: string;
  type: typeof TOOL_APPROVAL | (string & {});
  tool_id?: string;
  display_name: string;
  description: string;
  arguments: Record<string, unknown>;
  /** RFC 3339; absent when the approval has no deadline. */
  expires_at?: string;
}

/** Caller-safe details of a failed run. */
export interface DurableRunError {
  code: string;
  message: string;
}

export interface DurableRun {
  run_id: string;
  agent_id: string;
  state: DurableRunState;
  /** RFC 3339. */
  created_at: string;
  /** RFC 3339: the latest persisted activity, not a state-transition time. */
  updated_at: string;
  /** RFC 3339 execution deadline of the active turn; absent while paused or finished. */
  expires_at?: string;
  /** Empty unless the state is REQUIRES_INPUT. */
  pending_interactions: ToolApproval[];
  /** Accumulated text-only output under `messages`. */
  output?: { messages?: Message[]; [other: string]: unknown };
  error?: DurableRunError;
}

/** Every 2xx answer of the durable endpoints: 201 for create, 200 for the rest. */
export interface DurableRunResponse {
  run: DurableRun;
  request_id: string;
}

export const APPROVAL_DECISIONS = ['APPROVE', 'REJECT'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

export interface ApprovalResponse {
  interaction_id: string;
  decision: ApprovalDecision;
}

/** `POST /api/agents/{agent_id}/responses`: one decision per pending interaction. */
export interface RunResponsesRequest {
  run_id: string;
  responses: ApprovalResponse[];
}

/** `POST /api/agents/{agent_id}/cancellations`. */
export interface RunCancellationRequest {
  run_id: string;
}

/**
 * Why the reference service answered 409 to a cancellation or to decisions: the problem's
 * `reason` extension member (RFC 9457 allows extensions; a production instance may send none).
 */
export const RUN_CONFLICT_REASONS = [
  /** Cancellation: the run is in a step that cannot be interrupted, or no worker holds it. */
  'not_cancellable',
  /** Decisions: an interaction id appears twice in the request. */
  'duplicate_interaction',
  /** Decisions: an interaction was already answered the other way. */
  'conflicting_decision',
  /** Decisions: some interactions were answered in an earlier batch. */
  'stale_decision',
  /** Decisions: not one decision per pending interaction. */
  'incomplete_decisions',
  /** Decisions: the run is not paused, or an interaction is not pending on it. */
  'not_pending',
  /** Decisions: an approval passed its own expires_at. */
  'approval_expired',
] as const;
export type RunConflictReason = (typeof RUN_CONFLICT_REASONS)[number];

/** The text of a durable run's output messages, in order, a line per message. */
export function durableOutputText(run: Pick<DurableRun, 'output'>): string {
  const messages = run.output?.messages;
  if (!Array.isArray(messages)) return '';
  return messages
    .map((m) => (Array.isArray(m?.content) ? m.content.map((b) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('') : ''))
    // A message with no text (another block type, another shape) adds no empty line.
    .filter((t) => t !== '')
    .join('\n');
}
