/**
 * The requests the console can send, described once for every code generator (curl, fetch,
 * the official TypeScript client): the same description always yields the same method, URL
 * and body in each language.
 */
import type { ApprovalResponse } from '../../contract/durable-runs';
import type { CustomProperty, MetadataSchema } from '../../contract/metadata';
import { platformCancellationsPath, platformResponsesPath, platformRunPath } from '../../contract/run-paths';
import { SSE_CONTENT_TYPE } from '../../contract/sse';
import { toolServerAuthPath, toolServerToolsPath } from '../../contract/tool-servers';

export type RunFlavour = 'legacy' | 'platform';
export type RunMode = 'stream' | 'wait' | 'durable';

export type ApiCall =
  | { op: 'getSchema'; group: string }
  | { op: 'putSchema'; group: string; schema: MetadataSchema }
  | { op: 'deleteSchema'; group: string }
  | { op: 'putValues'; group: string; docId: string; values: CustomProperty[] }
  | { op: 'deleteValues'; group: string; docId: string }
  /**
   * An agent run as the console sends it: `path` and `body` already written for the flavour and
   * mode; `headers` it adds (an X-Sandbox-Fault to the bundled reference service).
   */
  | { op: 'run'; agentId: string; flavour: RunFlavour; mode: RunMode; path: string; body: Record<string, unknown>; headers?: Record<string, string> }
  /** Decisions on a paused durable run's pending tool approvals: one per pending interaction, in one batch. */
  | { op: 'respond'; agentId: string; runId: string; responses: ApprovalResponse[] }
  /** Asks a durable run to stop (cooperative: it may pass through CANCELLING). */
  | { op: 'cancel'; agentId: string; runId: string }
  /** Reads a durable run until it ends; sends nothing else. */
  | { op: 'follow'; agentId: string; runId: string }
  /** The agent's schemas with its tools (`include_tools=true`), on the platform API. */
  | { op: 'agentTools'; agentId: string }
  /** The calling token's authorization status on a tool server (Client API). */
  | { op: 'toolServerStatus'; serverId: string }
  /** Asks for a tool server's consent link; the browser comes back to `returnUrl`. */
  | { op: 'authorizeToolServer'; serverId: string; returnUrl: string }
  /** The definitions of named tools of a tool server. */
  | { op: 'toolServerTools'; serverId: string; toolNames: string[] };

/** The calls about an agent's tools and their authorization (docs/api.md, agent tools). */
export type ToolCall = Extract<ApiCall, { op: 'agentTools' | 'toolServerStatus' | 'authorizeToolServer' | 'toolServerTools' }>;

export const isToolCall = (call: ApiCall): call is ToolCall =>
  call.op === 'agentTools' || call.op === 'toolServerStatus' || call.op === 'authorizeToolServer' || call.op === 'toolServerTools';

/** The calls on an existing durable run: each sends (at most) one request, then reads the run until it ends. */
export type DurableRunCall = Extract<ApiCall, { op: 'respond' | 'cancel' | 'follow' }>;

/**
 * Decisions on a paused run: APPROVE for `approve` ('all', or one interaction id), REJECT for
 * every other pending interaction. The API takes the whole batch in one request (a decision
 * for each pending interaction), so approving one is rejecting the rest.
 */
export function respondCall(agentId: string, runId: string, pending: readonly string[], approve: 'all' | 'none' | (string & {})): Extract<ApiCall, { op: 'respond' }> {
  return {
    op: 'respond',
    agentId,
    runId,
    responses: pending.map((id) => ({ interaction_id: id, decision: approve === 'all' || approve === id ? 'APPROVE' : 'REJECT' })),
  };
}

export interface SnippetOptions {
  /** Where the API lives, absolute, without a trailing slash (e.g. https://acme-be.glean.com). */
  serverUrl: string;
  token?: string;
  /** When false (the default) the token is read from the TOKEN environment variable: $TOKEN in a shell, process.env.TOKEN in code. */
  includeToken: boolean;
}

export type Language = 'curl' | 'javascript' | 'typescript';
export const LANGUAGES: { id: Language; label: string }[] = [
  { id: 'curl', label: 'curl' },
  { id: 'javascript', label: 'JavaScript' },
  { id: 'typescript', label: 'TypeScript' },
];

export interface HttpShape {
  method: 'GET' | 'PUT' | 'DELETE' | 'POST';
  path: string;
  body?: unknown;
  /** The answer is an event stream. */
  stream: boolean;
  /** A durable run: created (or answered, or cancelled, or only read), then read with GET until it ends. */
  durable: boolean;
  headers: Record<string, string>;
}

const enc = encodeURIComponent;
const schemaPath = (group: string) => `/rest/api/index/custom-metadata/schema/${enc(group)}`;
const valuesPath = (docId: string, group: string) => `/rest/api/index/document/${enc(docId)}/custom-metadata/${enc(group)}`;

/** The HTTP request behind a call; what curl and fetch send verbatim. */
export function httpShape(call: ApiCall): HttpShape {
  const plain = { stream: false, durable: false, headers: {} };
  switch (call.op) {
    case 'getSchema':
      return { ...plain, method: 'GET', path: schemaPath(call.group) };
    case 'putSchema':
      return { ...plain, method: 'PUT', path: schemaPath(call.group), body: call.schema };
    case 'deleteSchema':
      return { ...plain, method: 'DELETE', path: schemaPath(call.group) };
    case 'putValues':
      return { ...plain, method: 'PUT', path: valuesPath(call.docId, call.group), body: { customMetadata: call.values } };
    case 'deleteValues':
      return { ...plain, method: 'DELETE', path: valuesPath(call.docId, call.group) };
    case 'run': {
      const stream = call.mode === 'stream';
      return {
        method: 'POST',
        path: call.path,
        body: call.body,
        stream,
        durable: call.mode === 'durable' && call.flavour === 'platform',
        headers: { ...call.headers, ...(stream && { Accept: SSE_CONTENT_TYPE }) },
      };
    }
    case 'respond':
      return { ...plain, durable: true, method: 'POST', path: platformResponsesPath(call.agentId), body: { run_id: call.runId, responses: call.responses } };
    case 'cancel':
      return { ...plain, durable: true, method: 'POST', path: platformCancellationsPath(call.agentId), body: { run_id: call.runId } };
    case 'follow':
      return { ...plain, durable: true, method: 'GET', path: platformRunPath(call.agentId, call.runId) };
    case 'agentTools':
      return { ...plain, method: 'GET', path: `/api/agents/${enc(call.agentId)}/schemas?include_tools=true` };
    case 'toolServerStatus':
      return { ...plain, method: 'GET', path: toolServerAuthPath(call.serverId) };
    case 'authorizeToolServer':
      return { ...plain, method: 'POST', path: toolServerAuthPath(call.serverId), body: { returnUrl: call.returnUrl } };
    case 'toolServerTools':
      // As the official client writes it: one parameter, the names comma-separated.
      return { ...plain, method: 'GET', path: `${toolServerToolsPath(call.serverId)}?toolNames=${call.toolNames.map(enc).join(',')}` };
  }
}

/** Where a durable run is followed: this prefix, then its run_id percent-encoded. */
export function durableRunPathPrefix(agentId: string): string {
  const marker = 'RUNID';
  return platformRunPath(agentId, marker).slice(0, -marker.length);
}

/** Stands for the token on screen when "Include token" is ticked: the real one goes only to the clipboard. */
export const MASKED_TOKEN = '••••••••';
/**
 * The one environment variable every snippet reads the token from, in every language, as the
 * README mints it (`export TOKEN=$(npm run --silent token -- --scope …)`): so a redacted
 * snippet runs once TOKEN is set, whichever language it is in.
 */
export const TOKEN_VARIABLE = 'TOKEN';
export const SHELL_TOKEN = `$${TOKEN_VARIABLE}`;
export const ENV_TOKEN = `process.env.${TOKEN_VARIABLE}`;

/** Where the token comes from when it is not included, as each language writes it. */
export function tokenPlaceholder(language: Language): string {
  return language === 'curl' ? SHELL_TOKEN : ENV_TOKEN;
}
