import { useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { consentResultOf, searchWithoutConsentResult, type ConsentResult } from '../model/tool-auth';

/**
 * What a consent page said when it sent the browser back here (its result in the query), read
 * once, then taken out of the address so a reload or a shared link does not say it again.
 */
export function useConsentReturn(): { result?: ConsentResult; dismiss(): void } {
  const location = useLocation();
  const navigate = useNavigate();
  const [result, setResult] = useState(() => consentResultOf(location.search));
  useEffect(() => {
    if (consentResultOf(location.search) === undefined) return;
    void navigate({ pathname: location.pathname, search: searchWithoutConsentResult(location.search), hash: location.hash }, { replace: true, state: location.state });
  }, [location, navigate]);
  return { result, dismiss: () => setResult(undefined) };
}

/** Back from a consent page: what it said. The statuses themselves are read again where the servers are listed. */
export function ConsentReturnNotice({ result, onDismiss, settled = true }: {
  result: ConsentResult;
  onDismiss(): void;
  /** Whether what is drawn above the notice (the agent and its form, read after the page loads) is there: focus waits for it. */
  settled?: boolean;
}) {
  const server = result.serverId ? (
    <>
      tool server <code>{result.serverId}</code>
    </>
  ) : (
    'the tool server'
  );
  // The page was just loaded again: on a phone this notice sits below the whole form. Focus brings it
  // on screen and has it read out; the next Tab goes on to Dismiss and the servers' statuses.
  const box = useRef<HTMLDivElement>(null);
  const focused = useRef(false);
  useEffect(() => {
    if (!settled || focused.current) return;
    focused.current = true;
    box.current?.focus();
  }, [settled]);
  return (
    <div ref={box} tabIndex={-1} className={result.allowed ? 'notice consent-return' : 'warning'} role="status">
      <p>
        Back from the consent page:{' '}
        {result.allowed ? (
          <>access to {server} was allowed. Its status is read again below.</>
        ) : (
          <>
            access to {server} was not allowed{result.error ? ` (${result.error})` : ''}. Nothing changed; Authorize it again to allow it.
          </>
        )}{' '}
        <button type="button" className="link-button" onClick={onDismiss}>
          Dismiss
        </button>
      </p>
    </div>
  );
}
