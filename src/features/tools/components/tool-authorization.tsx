import { useMutation, useQueries } from '@tanstack/react-query';
import { useEffect, useId, useRef } from 'react';
import { CodeSnippets } from '../../../components/code-snippets';
import { ResponseSummary } from '../../../components/response-meta';
import { SpecBadge } from '../../../components/spec-badge';
import { toolSuggestionsOf, type ToolServerAuthStatusResponse, type ToolSuggestion } from '../../../contract/tool-servers';
import { ApiError, type ApiResponse } from '../../../lib/api-client';
import { connectionKey, useConnection, type ActiveConnection } from '../../../lib/connection';
import { authorizeToolServer, toolServerAuthQueryOptions } from '../api/tool-server-auth';
import { consentTarget, instanceOriginOf, returnUrlOf, serverAuthText } from '../model/tool-auth';
import type { ToolAuthorizationProps } from '../../../components/slots';

const errorText = (error: unknown) => (error instanceof ApiError ? `${error.status ? `${error.status} ` : ''}${error.title}: ${error.detail}` : String(error));

/** Why Authorize was refused, and what helps, when the instance said so. */
function authorizeProblem(error: unknown): string {
  const text = errorText(error);
  if (error instanceof ApiError && error.status === 400) {
    return `${text} If the instance does not accept this console’s address (${window.location.origin}) as a return URL, its administrator must add it to the allowed return URLs (the reference service: --allowed-return-origin).`;
  }
  return text;
}

/** The same profile with the same token: what was asked for one is that one's. */
function sameSender(a: ActiveConnection, b: ActiveConnection): boolean {
  return a.profileId === b.profileId && connectionKey(a).join(' ') === connectionKey(b).join(' ');
}

type Status = { kind: 'checking' } | { kind: 'answered'; response: ApiResponse<ToolServerAuthStatusResponse> } | { kind: 'failed'; error: unknown };

function statusWords(status: Status): { text: string; tone: 'ok' | 'waiting' | 'problem' | 'checking' } {
  if (status.kind === 'checking') return { text: 'Checking…', tone: 'checking' };
  if (status.kind === 'failed') {
    const unknown = status.error instanceof ApiError && status.error.status === 404;
    return { text: unknown ? 'Unknown to this instance (404)' : `Status could not be read (${errorText(status.error)})`, tone: 'problem' };
  }
  const s = status.response.data?.authStatus;
  if (s === 'AUTHORIZED') return { text: 'Authorized', tone: 'ok' };
  if (s === 'AWAITING_AUTH') return { text: 'Awaiting your authorization', tone: 'waiting' };
  return { text: `Status ${typeof s === 'string' ? s : 'not stated'} (not one this console knows)`, tone: 'waiting' };
}

/**
 * A run refused for unauthorized tools (422 `tools_unauthorized`, or the client API's 422):
 * each tool server it names with its status for this token, and **Authorize**, which sends
 * this tab to the instance's consent page and asks it to come back to this very address, the
 * run and its input as they are; then **Run again**, the same request once more. Statuses are
 * read whenever this shows (after the return too) and on **Check again**.
 */
export function ToolAuthorization({ error, onRunAgain, runAgainBlockedWhy, sentWith, openConsent = (href) => window.location.assign(href) }: ToolAuthorizationProps) {
  const connection = useConnection();
  const headingId = useId();
  // One row per server: the same server named twice (two of its tools) is authorized once.
  const servers = [...new Map(toolSuggestionsOf(error.body).map((s) => [s.serverId, s])).values()];
  const statuses = useQueries({ queries: servers.map((s) => toolServerAuthQueryOptions(connection, s.serverId)) });
  const authorize = useMutation({
    // What it acts on is captured when clicked: the connection and the address to come back to.
    mutationFn: async (v: { connection: ActiveConnection; serverId: string; returnUrl: string }) => {
      const answer = await authorizeToolServer(v.connection, v.serverId, v.returnUrl);
      const target = consentTarget(answer.data?.authorizationUrl, instanceOriginOf(v.connection, window.location.origin));
      if (!target.ok) throw new Error(target.problem);
      // The tab goes to the consent page only if the user is still on the profile it was asked
      // for: after a switch, coming back would show the other token's statuses, none the wiser.
      if (!sameSender(v.connection, current.current)) throw new Error(`The consent link came after you switched profile, so this tab stayed here. Authorize again to open it for ${v.connection.profileLabel}.`);
      return target.href;
    },
    onSuccess: (href) => openConsent(href),
  });
  const current = useRef(connection);
  useEffect(() => {
    current.current = connection;
  }, [connection]);
  // What an Authorize asked for another profile (or token) got is not this one's to show.
  const asked = authorize.variables && sameSender(authorize.variables.connection, connection) ? authorize : undefined;
  if (servers.length === 0) return null;
  const rows = servers.map((server, i) => {
    const q = statuses[i]!;
    const status: Status = q.isError ? { kind: 'failed', error: q.error } : q.data ? { kind: 'answered', response: q.data } : { kind: 'checking' };
    return { server, status, query: q };
  });
  const authorized = rows.filter((r) => r.status.kind === 'answered' && r.status.response.data?.authStatus === 'AUTHORIZED').length;
  const allAuthorized = authorized === rows.length;
  const checking = rows.some((r) => r.query.isFetching);
  const otherProfile = sentWith && sentWith.profileId !== undefined && sentWith.profileId !== connection.profileId;
  const firstWaiting = rows.find((r) => !(r.status.kind === 'answered' && r.status.response.data?.authStatus === 'AUTHORIZED'))?.server ?? servers[0]!;

  return (
    <section className="tool-authorization" aria-labelledby={headingId}>
      <h4 id={headingId}>Tool servers to authorize</h4>
      <p>
        Authorize opens the tool’s consent page in this tab; it brings you back here, to this run, with its input as it was. This console then reads each
        server’s status again.
      </p>
      {otherProfile && (
        <p className="warning">
          This run was sent with profile <strong>{sentWith.profileLabel}</strong>; statuses and Authorize here are for the token of profile{' '}
          <strong>{connection.profileLabel}</strong>.
        </p>
      )}
      <ul className="tool-servers">
        {rows.map(({ server, status }) => (
          <ServerRow
            key={server.serverId}
            server={server}
            status={status}
            busy={!!asked?.isPending && asked.variables?.serverId === server.serverId}
            disabled={!!asked && (asked.isPending || asked.isSuccess)}
            problem={asked?.isError && asked.variables?.serverId === server.serverId ? authorizeProblem(asked.error) : undefined}
            onAuthorize={() => authorize.mutate({ connection, serverId: server.serverId, returnUrl: returnUrlOf(window.location.href) })}
          />
        ))}
      </ul>
      {asked?.isSuccess && (
        <p role="status" className="hint">
          Opening the consent page…
        </p>
      )}
      <div className="toolbar">
        {onRunAgain && (
          <button type="button" className={allAuthorized ? 'primary' : undefined} disabled={runAgainBlockedWhy !== undefined} onClick={onRunAgain}>
            Run again
          </button>
        )}
        <button type="button" disabled={checking} onClick={() => statuses.forEach((q) => void q.refetch())}>
          {checking ? 'Checking…' : 'Check again'}
        </button>
        <span className="hint" role="status">
          {runAgainBlockedWhy ??
            (allAuthorized
              ? `Every tool server is authorized${onRunAgain ? ': Run again sends the same request once more.' : '.'}`
              : `${authorized} of ${rows.length} authorized${onRunAgain ? ': run again now and the instance refuses it again.' : '.'}`)}
        </span>
      </div>
      <details>
        <summary>Code for these calls</summary>
        <p className="hint">
          Status of <code>{firstWaiting.serverId}</code>:
        </p>
        <CodeSnippets call={{ op: 'toolServerStatus', serverId: firstWaiting.serverId }} connection={connection} />
        <p className="hint">
          Its consent link, back to this page:
        </p>
        <CodeSnippets call={{ op: 'authorizeToolServer', serverId: firstWaiting.serverId, returnUrl: returnUrlOf(window.location.href) }} connection={connection} />
      </details>
    </section>
  );
}

function ServerRow({ server, status, busy, disabled, problem, onAuthorize }: {
  server: ToolSuggestion;
  status: Status;
  busy: boolean;
  disabled: boolean;
  problem?: string;
  onAuthorize(): void;
}) {
  const words = statusWords(status);
  const answer = status.kind === 'answered' ? status.response : undefined;
  const name = answer?.data?.displayName ?? server.toolName ?? server.serverId;
  const unknown = status.kind === 'failed' && status.error instanceof ApiError && status.error.status === 404;
  const canAuthorize = !unknown && status.kind !== 'checking' && answer?.data?.authStatus !== 'AUTHORIZED';
  // The answer as received, the spec lens's verdict on it included: a success's, or an error's.
  const shown = answer ?? (status.kind === 'failed' && status.error instanceof ApiError ? status.error.meta : undefined);
  return (
    <li aria-label={name}>
      <p className="tool-server-head">
        <strong>{name}</strong> <code className="muted">{server.serverId}</code>
        {server.toolName && server.toolName !== name && <span className="muted"> (named {server.toolName} in the refusal)</span>}
      </p>
      <p>
        <span className={`tool-status tool-status-${words.tone}`}>{words.text}</span>
        {answer?.data && <span className="muted"> · {serverAuthText(answer.data.authType)}</span>}
      </p>
      {unknown && status.kind === 'failed' && <p className="hint">{errorText(status.error)} The refusal names a server this instance does not know: nothing here can authorize it.</p>}
      {canAuthorize && (
        <button type="button" disabled={disabled} onClick={onAuthorize} aria-label={`Authorize ${name}`}>
          {busy ? 'Asking for the consent link…' : 'Authorize'}
        </button>
      )}
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
      {shown && (
        <details>
          <summary>Status answer</summary>
          <ResponseSummary meta={shown} />
          <SpecBadge answer={shown} inError={!answer} />
          <pre className="raw">{shown.rawBody}</pre>
        </details>
      )}
    </li>
  );
}
