/**
 * Durable runs, tool approvals and cancellation on the platform API (docs/api.md, durable runs),
 * written from the official client @gleanwork/api-client 0.20.15's models: the shapes the
 * console reads and the reference service answers.
 */
import type { Message } from './agents';

/** `execution_mode` of a run body; REQUEST_BOUND is the stream/wait behaviour. */
export type ExecutionMode = 'REQUEST_BOUND' | 'DURABLE';

export const DURABLE_STATES = ['QUEUED', 'RUNNING', 'REQUIRES_INPUT', 'SUCCEEDED', 'FAILED', 'CANCELLING', 'CANCELLED', 'EXPIRED'] as const;
export type KnownDurableState = (typeof DURABLE_STATES)[number];
/** An open enum: a state the console does not know is shown as it is, not an error. */
export type DurableState = KnownDurableState | (string & {});

/** States after which a run never changes again. */
export const TERMINAL_STATES: readonly DurableState[] = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED'];

export function isTerminalState(state: DurableState): boolean {
  return TERMINAL_STATES.includes(state);
}

export type Decision = 'APPROVE' | 'REJECT';

export interface ToolApproval {
  interaction_id: string;
  type: 'TOOL_APPROVAL' | (string & {});
  tool_id?: string;
  display_name: string;
  description: string;
  arguments: Record<string, unknown>;
  expires_at?: string;
}

export interface DurableRun {
  run_id: string;
  agent_id: string;
  state: DurableState;
  created_at: string;
  updated_at: string;
  expires_at?: string;
  pending_interactions: ToolApproval[];
  output?: { messages?: Message[] };
  error?: { code: string; message: string };
}

/** The answer of create (201), get, cancel and respond. */
export interface DurableRunAnswer {
  run: DurableRun;
  request_id: string;
}

export interface CancellationRequest {
  run_id: string;
}

export interface ResponsesRequest {
  run_id: string;
  responses: { interaction_id: string; decision: Decision }[];
}

// --- Beyond what the console started with: the service uses these too. ---------------

export {
  platformCancellationsPath,
  platformResponsesPath,
  platformRunPath,
  platformRunsPath,
  RUN_PATHS,
} from './run-paths.ts';

export const EXECUTION_MODES: readonly ExecutionMode[] = ['REQUEST_BOUND', 'DURABLE'];

export const APPROVAL_DECISIONS: readonly Decision[] = ['APPROVE', 'REJECT'];

/** Work is (or should be) going on: polling is worth it and the execution deadline applies. */
export const ACTIVE_STATES: readonly DurableState[] = ['QUEUED', 'RUNNING', 'CANCELLING'];

export function isKnownState(state: DurableState): state is KnownDurableState {
  return (DURABLE_STATES as readonly string[]).includes(state);
}

export function isActiveState(state: DurableState): boolean {
  return ACTIVE_STATES.includes(state);
}

/** Paused for tool approvals: not terminal, and never expires. */
export function isPausedState(state: DurableState): boolean {
  return state === 'REQUIRES_INPUT';
}

/** One item of a responses request. */
export type ApprovalResponse = ResponsesRequest['responses'][number];

/** Caller-safe details of a failed run. */
export type DurableRunError = NonNullable<DurableRun['error']>;

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
