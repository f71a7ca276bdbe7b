import type { Message } from '../contract/agents';
import { legacyRunPath, platformRunsPath, type RunFlavour } from '../contract/run-paths';
import { SANDBOX_FAULT_HEADER } from '../contract/sandbox-fault';
import type { ConnectionMode } from '../lib/connection';

export type Flavour = RunFlavour;

/** What a run's request says of its place in a conversation. */
export interface ThreadRef {
  id: string;
  /** The turn (a run's history id) whose answer this turn follows; none for the first turn. */
  parentId?: string;
}
/** Durable exists only on the platform API: the run is persisted and followed by its id. */
export type Mode = 'stream' | 'wait' | 'durable';

/** What a run sends: input when the agent has a form, messages when it takes them. */
export interface RunParts {
  input?: Record<string, unknown>;
  messages?: Message[];
}

/**
 * Everything that identifies a run, fixed when it is sent: history, export, re-run and every
 * heading read the agent, flavour, mode and body from here, never from what is selected now.
 */
export interface RunRequest {
  agentId: string;
  /** The agent's name as the console knew it when the run was sent. */
  agentName?: string;
  flavour: Flavour;
  mode: Mode;
  path: string;
  body: Record<string, unknown>;
  /** Wait mode: the console stops waiting after this long (the service may still finish). */
  timeoutMs?: number;
  /** A messages agent's run is a turn of a conversation: which, and the turn it follows. */
  thread?: ThreadRef;
  /** Headers the run adds to its POST: only X-Sandbox-Fault, only to the bundled reference service. */
  headers?: RunHeaders;
}

/** The headers a run may add. The token is never one of them: it goes only from the connection. */
export type RunHeaders = Partial<Record<typeof SANDBOX_FAULT_HEADER, string>>;

/** The X-Sandbox-Fault a run was sent with, if any. */
export function faultOfRequest(request: Pick<RunRequest, 'headers'>): string | undefined {
  return request.headers?.[SANDBOX_FAULT_HEADER];
}

/**
 * The request with `fault` as its X-Sandbox-Fault, when it goes to the bundled reference
 * service (`mode` same-origin); to anything else, without: an instance is never asked for one.
 */
export function withSandboxFault(request: RunRequest, fault: string | undefined, mode: ConnectionMode): RunRequest {
  const { headers: _old, ...rest } = request;
  return fault && mode === 'same-origin' ? { ...rest, headers: { [SANDBOX_FAULT_HEADER]: fault } } : rest;
}

export interface RunAgent {
  id: string;
  name?: string;
}

/** The run's path and exact body on either API; the two differ only where the APIs do. */
export function runRequest(flavour: Flavour, mode: Mode, agent: RunAgent, parts: RunParts, timeoutMs?: number): RunRequest {
  const content = {
    ...(parts.input !== undefined && { input: parts.input }),
    ...(parts.messages !== undefined && { messages: parts.messages }),
  };
  // The legacy API has no durable runs; its nearest is a wait (with the wait's timeout).
  const sent: Mode = flavour === 'legacy' && mode === 'durable' ? 'wait' : mode;
  const common = { agentId: agent.id, ...(agent.name !== undefined && { agentName: agent.name }), flavour, mode: sent, ...(timeoutMs !== undefined && sent === 'wait' && { timeoutMs }) };
  if (flavour === 'legacy') {
    const legacyMode = sent === 'stream' ? 'stream' : 'wait';
    return { ...common, path: legacyRunPath(legacyMode), body: { agent_id: agent.id, ...content } };
  }
  if (mode === 'durable') return { ...common, path: platformRunsPath(agent.id), body: { ...content, execution_mode: 'DURABLE' } };
  return { ...common, path: platformRunsPath(agent.id), body: { ...content, stream: mode === 'stream' } };
}

/** The run's content (input, messages), whatever API the body was written for. */
export function partsOf(req: RunRequest): RunParts {
  const { input, messages } = req.body as RunParts;
  return { ...(input !== undefined && { input }), ...(messages !== undefined && { messages }) };
}

/** The same run on the other API, for "switch to the replacement" and the side-by-side view. */
export function counterpart(req: RunRequest): RunRequest {
  return runRequest(req.flavour === 'legacy' ? 'platform' : 'legacy', req.mode, { id: req.agentId, name: req.agentName }, partsOf(req), req.timeoutMs);
}

export interface Deprecation {
  deprecatedAt: Date;
  sunsetAt: Date;
  successor?: string;
  /** True when the dates came from the answer's headers, not the published defaults. */
  fromHeaders: boolean;
}

/** Reads RFC 9745 `Deprecation: @epoch`, RFC 8594 `Sunset` and the successor `Link`, else the published dates. */
export function deprecationOf(headers: [string, string][] | undefined, defaults: { deprecatedAt: Date; sunsetAt: Date }): Deprecation {
  const get = (n: string) => headers?.find(([k]) => k.toLowerCase() === n)?.[1];
  const dep = get('deprecation');
  const sunset = get('sunset');
  const link = get('link');
  const epoch = dep && /^@(\d+)$/.exec(dep.trim());
  const deprecatedAt = epoch ? new Date(Number(epoch[1]) * 1000) : defaults.deprecatedAt;
  const sunsetAt = sunset && !Number.isNaN(Date.parse(sunset)) ? new Date(sunset) : defaults.sunsetAt;
  const successor = link ? /<([^>]+)>\s*;\s*rel="?successor-version"?/i.exec(link)?.[1] : undefined;
  return { deprecatedAt, sunsetAt, successor, fromHeaders: Boolean(epoch || sunset) };
}
