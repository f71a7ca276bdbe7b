/**
 * Paths of the agent-run endpoints of both APIs (docs/api.md, both agent APIs), defined once:
 * the console builds requests with them, the service mounts its routes on them and logs the
 * POSTs that reach them, and the end-to-end tests count those POSTs. Templates are written as
 * the API documentation writes them, `{param}` for a path parameter.
 */

export type RunFlavour = 'legacy' | 'platform';
export type LegacyRunMode = 'stream' | 'wait';

export const RUN_PATHS = {
  /** Client API (deprecated): the agent goes in the body. */
  legacyStream: '/rest/api/v1/agents/runs/stream',
  legacyWait: '/rest/api/v1/agents/runs/wait',
  /** Platform API: `POST` creates a run (stream, wait or durable); the replacement of both. */
  platformRuns: '/api/agents/{agent_id}/runs',
  /** `GET` one durable run. */
  platformRun: '/api/agents/{agent_id}/runs/{run_id}',
  /** `POST { run_id }` asks a durable run to stop. */
  platformCancellations: '/api/agents/{agent_id}/cancellations',
  /** `POST { run_id, responses }` answers a paused run's pending tool approvals. */
  platformResponses: '/api/agents/{agent_id}/responses',
} as const;

export type RunPathTemplate = (typeof RUN_PATHS)[keyof typeof RUN_PATHS];

/** A template with its parameters filled in, each one percent-encoded. */
export function fillPath(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`No value for {${name}} in ${template}.`);
    return encodeURIComponent(value);
  });
}

/** A template as a router pattern (`:param`), relative to the prefix the router is mounted on. */
export function routePattern(template: string, mountedAt = ''): string {
  if (!template.startsWith(`${mountedAt}/`)) throw new Error(`${template} is not under ${mountedAt}.`);
  return template.slice(mountedAt.length).replace(/\{(\w+)\}/g, ':$1');
}

export function legacyRunPath(mode: LegacyRunMode): string {
  return mode === 'stream' ? RUN_PATHS.legacyStream : RUN_PATHS.legacyWait;
}

export function platformRunsPath(agentId: string): string {
  return fillPath(RUN_PATHS.platformRuns, { agent_id: agentId });
}

export function platformRunPath(agentId: string, runId: string): string {
  return fillPath(RUN_PATHS.platformRun, { agent_id: agentId, run_id: runId });
}

export function platformCancellationsPath(agentId: string): string {
  return fillPath(RUN_PATHS.platformCancellations, { agent_id: agentId });
}

export function platformResponsesPath(agentId: string): string {
  return fillPath(RUN_PATHS.platformResponses, { agent_id: agentId });
}

function pathRegExp(template: string): string {
  return template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+');
}

/** Every path a run is started with, on either API: the exactly-once checks count POSTs to these. */
export const RUN_POST_PATH = new RegExp(
  `^(${[RUN_PATHS.legacyStream, RUN_PATHS.legacyWait, RUN_PATHS.platformRuns].map(pathRegExp).join('|')})$`,
);
