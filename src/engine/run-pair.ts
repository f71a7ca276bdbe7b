/**
 * "Run on both": the current request sent to two targets at once, for a comparison. The
 * second run differs from the first in one thing: the API, the mode, the profile or the agent.
 */
import { counterpart, partsOf, runRequest, type RunRequest } from './run-request';

/** The name of the submit buttons that run the form on both targets; their value is the PairTarget as JSON. */
export const RUN_ON_BOTH = 'run-on-both';

export type PairTarget = { kind: 'api' } | { kind: 'mode' } | { kind: 'profile'; profileId: string } | { kind: 'agent'; agentId: string };

/** The target a submit button names, if it is a "Run on both" button with a target it can read. */
export function pairTargetOf(submitter: HTMLElement | null): PairTarget | undefined {
  if (!(submitter instanceof HTMLButtonElement) || submitter.name !== RUN_ON_BOTH) return undefined;
  try {
    const t = JSON.parse(submitter.value) as PairTarget;
    if (t.kind === 'api' || t.kind === 'mode') return { kind: t.kind };
    if (t.kind === 'profile' && typeof t.profileId === 'string' && t.profileId) return t;
    if (t.kind === 'agent' && typeof t.agentId === 'string' && t.agentId.trim()) return { kind: 'agent', agentId: t.agentId.trim() };
  } catch {
    // A button whose value is not a target runs nothing on both.
  }
  return undefined;
}

/** The mode a comparison of modes sets against `mode`. */
export const otherMode = (mode: RunRequest['mode']): RunRequest['mode'] => (mode === 'stream' ? 'wait' : 'stream');

/**
 * The second run of the pair: the first changed in the one thing the target names (the same
 * request for another profile). `timeoutMs`: the wait timeout the user set, which a stream's
 * request does not carry but a wait B must.
 */
export function secondRequest(first: RunRequest, target: PairTarget, timeoutMs = first.timeoutMs): RunRequest {
  const agent = { id: first.agentId, ...(first.agentName !== undefined && { name: first.agentName }) };
  switch (target.kind) {
    case 'api':
      return counterpart({ ...first, ...(timeoutMs !== undefined && { timeoutMs }) });
    case 'mode':
      return runRequest(first.flavour, otherMode(first.mode), agent, partsOf(first), timeoutMs);
    case 'profile':
      return first;
    case 'agent':
      return runRequest(first.flavour, first.mode, { id: target.agentId }, partsOf(first), timeoutMs);
  }
}
