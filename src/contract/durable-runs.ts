/**
 * Durable runs, tool approvals and cancellation on the platform API (API.md section 4b),
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
