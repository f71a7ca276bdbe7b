/**
 * `X-Sandbox-Client-Run-Id`: the reference service's way to find a durable run again whose
 * creating answer never reached its client (the page was reloaded before the 201 arrived). The
 * console sends it on a durable run's POST only when its profile is the bundled reference
 * service, with the history entry's id; the service keeps it with the run (per token), and
 * `GET /sandbox/durable-runs?client_run_id=…` (Authorization required) answers the runs that
 * token started with it. The API contract has no list of runs: this is the sandbox's alone, and
 * a production instance never reads the header.
 */

export const SANDBOX_CLIENT_RUN_ID_HEADER = 'X-Sandbox-Client-Run-Id';
export const SANDBOX_DURABLE_RUNS_PATH = '/sandbox/durable-runs';
export const CLIENT_RUN_ID_PARAM = 'client_run_id';
export const CLIENT_RUN_ID_MAX_LENGTH = 128;

const CLIENT_RUN_ID = /^[A-Za-z0-9._:-]+$/;

/** Why a client run id is refused, or undefined when it may be used. */
export function clientRunIdProblem(value: string): string | undefined {
  if (value.length === 0 || value.length > CLIENT_RUN_ID_MAX_LENGTH) return `${SANDBOX_CLIENT_RUN_ID_HEADER} must be 1 to ${CLIENT_RUN_ID_MAX_LENGTH} characters.`;
  if (!CLIENT_RUN_ID.test(value)) return `${SANDBOX_CLIENT_RUN_ID_HEADER} may hold only letters, digits and . _ : -`;
  return undefined;
}

/** One run the token started with the client run id, newest first. */
export interface SandboxDurableRun {
  run_id: string;
  agent_id: string;
  state: string;
  created_at: string;
}

export interface SandboxDurableRunsAnswer {
  runs: SandboxDurableRun[];
}
