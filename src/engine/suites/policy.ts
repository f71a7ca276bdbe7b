/**
 * Approval policies of durable cases: which decision each pending approval of a paused run
 * gets, in the console's suite runs and in `npm run suite` alike.
 */

import type { Decision, ToolApproval } from '../../contract/durable-runs';
import type { Transition } from '../run-machine';
import type { ApprovalPolicy } from './suite';

export interface PolicyDecision {
  interactionId: string;
  /** The tool as the run named it (its id, else its display name). */
  tool: string;
  name: string;
  decision: Decision;
  /** The per-tool policy did not list the tool: its `otherwise` decided. */
  byDefault?: boolean;
}

/** The decision of each pending approval, one per interaction (the API takes them in one batch). */
export function decide(policy: ApprovalPolicy | undefined, pending: readonly ToolApproval[]): PolicyDecision[] {
  return pending.map((p) => {
    const tool = p.tool_id ?? p.display_name;
    const base = { interactionId: p.interaction_id, tool, name: p.display_name };
    if (!policy || policy.kind === 'approve-all') return { ...base, decision: 'APPROVE' };
    if (policy.kind === 'reject-all') return { ...base, decision: 'REJECT' };
    const listed = policy.tools.find((t) => t.toolId === p.tool_id) ?? policy.tools.find((t) => t.toolId === p.display_name || (t.name !== undefined && t.name === p.display_name));
    return listed ? { ...base, decision: listed.decision } : { ...base, decision: policy.otherwise, byDefault: true };
  });
}

/** The tools a run asked approval for, with what was decided, from its states seen (a tool asked twice keeps its last decision). */
export function toolsAsked(transitions: readonly Transition[] | undefined): { toolId: string; name: string; decision: Decision }[] {
  const tools = new Map<string, { toolId: string; name: string; decision: Decision }>();
  for (const t of transitions ?? []) for (const d of t.decisions ?? []) tools.set(d.toolId ?? d.name, { toolId: d.toolId ?? d.name, name: d.name, decision: d.decision });
  return [...tools.values()];
}

/**
 * The policy that decides as the run was decided: approve all, reject all, or (decisions that
 * differ) one per tool, rejecting a tool it never asked for. A run that asked nothing: approve all.
 */
export function policyFromRun(transitions: readonly Transition[] | undefined): ApprovalPolicy {
  const tools = toolsAsked(transitions);
  if (tools.every((t) => t.decision === 'APPROVE')) return { kind: 'approve-all' };
  if (tools.every((t) => t.decision === 'REJECT')) return { kind: 'reject-all' };
  return { kind: 'per-tool', tools: tools.map((t) => ({ toolId: t.toolId, name: t.name, decision: t.decision })), otherwise: 'REJECT' };
}
