import { useEffect, useState } from 'react';
import { GLOBAL_SCOPE, groupScope } from '../../contract/scopes';
import type { ApiError } from '../../lib/api-client';
import { ErrorDetails } from '../../components/error-details';
import { MAX_OBEYED_RETRY_AFTER_S, retryAfterNote, retryAfterSeconds } from '../../lib/retry-after';

function RetryAfter({ seconds, answer, onRetry }: { seconds: number; answer: ApiError; onRetry(): void }) {
  // The view stays mounted through Retry (the error is kept while it refetches): a countdown
  // belongs to the answer that asked for it, and a second 429 starts its own.
  const [count, setCount] = useState({ answer, left: seconds });
  const left = count.answer === answer ? count.left : seconds;
  useEffect(() => {
    if (left <= 0) return;
    const t = setTimeout(() => setCount({ answer, left: left - 1 }), 1000);
    return () => clearTimeout(t);
  }, [answer, left]);
  return (
    <p>
      {retryAfterNote(undefined, seconds)}{' '}
      <button type="button" onClick={onRetry} disabled={left > 0}>
        {left > 0 ? `Retry in ${left} s` : 'Retry now'}
      </button>
    </p>
  );
}

/** Explains a failed schema request in the terms of the API, keeping what the user typed. */
export function SchemaError({ error, group, statedScopes, tokenSent, onCreate, onRetry, createRef }: {
  error: ApiError;
  group: string;
  statedScopes: string[];
  /** False when the request went without a token: a 401 then says that, not that the token's scope is wrong. */
  tokenSent: boolean;
  onCreate(): void;
  /** The Create button's ref: focus comes back to it when the schema being created is cancelled. */
  createRef?(el: HTMLButtonElement | null): void;
  onRetry(): void;
}) {
  const needed = groupScope(group);
  let body;
  if (error.kind === 'network') {
    body = (
      <>
        <h3>{error.title}</h3>
        <p>{error.detail}</p>
      </>
    );
  } else if (error.status === 401 && !tokenSent) {
    body = (
      <>
        <h3>401 Unauthorized: no token was sent</h3>
        <p>
          Paste a token in the connection panel: one with <code>{needed}</code> or <code>{GLOBAL_SCOPE}</code> reads this group. With the bundled
          service, the Connection page has demo tokens to use in one click.
        </p>
      </>
    );
  } else if (error.status === 401) {
    body = (
      <>
        <h3>401 Unauthorized: the token is not allowed to read group “{group}”</h3>
        <p>
          Custom-metadata tokens are scoped. <code>{GLOBAL_SCOPE}</code> covers every group; <code>custommetadata:&lt;group&gt;</code> covers
          that one group. A token whose scopes do not cover the group is refused with 401. This request needs <code>{needed}</code> or{' '}
          <code>{GLOBAL_SCOPE}</code>.
        </p>
        {statedScopes.length > 0 && (
          <p>
            This profile says its token has: <code>{statedScopes.join(' ')}</code>.
          </p>
        )}
        <p className="muted">The service said: {error.detail}</p>
      </>
    );
  } else if (error.status === 404) {
    // Not an error for the reader: the group simply has no schema yet.
    return (
      <section className="panel no-schema" aria-labelledby={`no-schema-${group}`}>
        <h3 id={`no-schema-${group}`}>No schema defined for group “{group}”</h3>
        <p>The group has no schema yet. Define its keys to start attaching metadata to documents.</p>
        <button type="button" onClick={onCreate} ref={createRef}>
          Create a schema for {group}
        </button>
        <ErrorDetails error={error} />
      </section>
    );
  } else if (error.status === 429) {
    const stated = error.header('retry-after');
    const retry = retryAfterSeconds(stated);
    body = (
      <>
        <h3>429 Too many requests</h3>
        <p>{error.detail}</p>
        {retry !== undefined && retry > 0 && retry <= MAX_OBEYED_RETRY_AFTER_S ? (
          <RetryAfter seconds={retry} answer={error} onRetry={onRetry} />
        ) : (
          <p>
            {/* An instance's wait is obeyed only when it is one and a short one: a year-long one never locks Retry. */}
            {retry ? `${retryAfterNote(stated, retry)} That is longer than the console holds Retry back for. ` : retry === undefined && stated ? `${retryAfterNote(stated, retry)} ` : ''}
            <button type="button" onClick={onRetry}>
              Retry
            </button>
          </p>
        )}
      </>
    );
  } else {
    body = (
      <>
        <h3>
          {error.status} {error.title}
        </h3>
        <p>{error.detail}</p>
      </>
    );
  }
  return (
    <div className="error-panel" role="alert">
      {body}
      <ErrorDetails error={error} />
    </div>
  );
}
