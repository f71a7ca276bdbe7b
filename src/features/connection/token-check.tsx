import { queryOptions, useQuery } from '@tanstack/react-query';
import { ApiError, apiRequest } from '../../lib/api-client';
import { connectionKey, useConnection, type ActiveConnection } from '../../lib/connection';

type Verdict = { accepted: true; agents: boolean } | { accepted: false; why: string };

/**
 * Does the service accept this token? One agent search (`POST /api/agents/search`): it runs
 * nothing, and its answer tells a token the service does not know (401) from one it knows
 * (200 with agents.run, 403 without).
 */
function tokenCheckOptions(connection: ActiveConnection) {
  return queryOptions({
    queryKey: [...connectionKey(connection), 'token-check'] as const,
    queryFn: async ({ signal }): Promise<Verdict> => {
      try {
        await apiRequest<unknown>(connection, '/api/agents/search', { method: 'POST', body: {}, signal });
        return { accepted: true, agents: true };
      } catch (e) {
        if (e instanceof ApiError && e.status === 403) return { accepted: true, agents: false };
        if (e instanceof ApiError && e.status === 401) return { accepted: false, why: 'The service does not accept this token (401): check it was copied whole, or mint a new one.' };
        throw e;
      }
    },
    enabled: connection.token !== undefined && !connection.problem,
    staleTime: Infinity,
    retry: false,
  });
}

export function TokenCheck() {
  const connection = useConnection();
  const check = useQuery(tokenCheckOptions(connection));
  if (!connection.token || connection.problem) return null;
  let text: string;
  let cls = 'hint';
  if (check.isPending) text = 'Checking the token with the service…';
  else if (check.isError) {
    text = `Could not check the token: ${check.error instanceof ApiError ? `${check.error.status || ''} ${check.error.detail}`.trim() : String(check.error)}`;
    cls = 'hint error';
  } else if (!check.data.accepted) {
    text = check.data.why;
    cls = 'hint error';
  } else {
    // "may" reads as "perhaps": say what the token can and cannot do.
    text = check.data.agents
      ? 'Token accepted. It can run agents.'
      : 'Token accepted. It cannot run agents (it lacks agents.run). Metadata groups are checked one by one, when you open a group.';
  }
  return (
    <p className={cls} role="status" aria-label="Token check">
      {text}
    </p>
  );
}
