import { useEffect, useId, useMemo, useState, type ReactNode } from 'react';
import { formatBytes } from '../lib/format';
import type { ResponseMeta } from '../lib/api-client';
import type { LensAnswer, LensResult, LensStream } from '../lib/spec-lens/lens';
import { summarize } from '../lib/spec-lens/summary';

type LensRequest = { answer: LensAnswer } | { stream: LensStream; event: string; data: string };

type LensState = { key: string; result: LensResult } | { key: string; failed: string };

/**
 * Runs the lens on a request, given as its JSON `key`, once its chunk (Ajv and the spec) has
 * loaded: a new answer is checked again, and a stale check that finishes late is never shown.
 */
function useLens(key: string): LensState | undefined {
  const [state, setState] = useState<LensState>();
  useEffect(() => {
    let live = true;
    const req = JSON.parse(key) as LensRequest;
    import('../lib/spec-lens/lens')
      .then((m) => m.loadLens())
      .then(
        (lens) => {
          const result = 'answer' in req ? lens.checkAnswer(req.answer) : lens.checkEvent(req.stream, req.event, req.data);
          if (live) setState({ key, result });
        },
        (err: unknown) => {
          if (live) setState({ key, failed: err instanceof Error ? err.message : String(err) });
        },
      );
    return () => {
      live = false;
    };
  }, [key]);
  return state?.key === key ? state : undefined;
}

function LensBadge({ requestKey, subject, inError = false }: { requestKey: string; subject: string; inError?: boolean }) {
  const state = useLens(requestKey);
  const [open, setOpen] = useState(false);
  const id = useId();
  // aria-live off: inside an error panel (role=alert) the verdict arriving a moment later
  // would otherwise be read out over the error itself.
  if (!state)
    return (
      <p className="spec-badge spec-checking" aria-live="off">
        Checking against the public schema…
      </p>
    );
  if ('failed' in state)
    return (
      <p className="spec-badge spec-none" aria-live="off">
        Could not load the public schema ({state.failed}).
      </p>
    );
  const { result } = state;
  // Inside an error a green "matches" reads as good news: the same finding is told plainly.
  const { tone, label } = summarize(result, subject, { inError });
  return (
    <div className={`spec-badge spec-${tone}`} aria-live="off">
      <button type="button" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)}>
        <span aria-hidden="true" className="spec-mark">
          {tone === 'match' ? '✓' : tone === 'differs' ? '≠' : tone === 'neutral' ? '=' : '∅'}
        </span>
        {label}
      </button>
      <div id={id} className="spec-details" hidden={!open}>
        {result.kind === 'no-schema' ? (
          <p>{result.reason}</p>
        ) : (
          <>
            <p className="muted">Checked against {result.against}.</p>
            {result.differences.length > 0 ? (
              <ul aria-label="Differences from the public schema">
                {result.differences.map((d, i) => (
                  <li key={i} className={d.severity === 'note' ? 'spec-note' : 'spec-error'}>
                    <code>{d.pointer || '(the whole answer)'}</code>{' '}
                    {d.severity === 'note' && (
                      <>
                        <span className="spec-tag">{d.referenceCode ? 'reference service' : 'note'}</span>{' '}
                      </>
                    )}
                    {d.text}
                  </li>
                ))}
              </ul>
            ) : (
              <p>Every value has the documented type, every promised property is there, and nothing undocumented was sent.</p>
            )}
          </>
        )}
      </div>
    </div>
  );
}

/**
 * The lens on a JSON answer (success or error): does it match the public schema of its operation
 * and status? `inError`: the badge sits inside an error, where a match is said neutrally.
 */
export function SpecBadge({ answer, inError }: { answer: ResponseMeta; inError?: boolean }) {
  const contentType = answer.headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
  // An event stream is checked event by event (SpecEventBadge); a body the console never
  // read (rawBody '') of a stream has nothing to check here.
  if (/text\/event-stream/i.test(contentType)) return null;
  return (
    <LargeAnswerGate size={answer.rawBody.length}>
      <AnswerLens answer={answer} contentType={contentType} inError={inError} />
    </LargeAnswerGate>
  );
}

function AnswerLens({ answer, contentType, inError }: { answer: ResponseMeta; contentType: string; inError?: boolean }) {
  const { method, url, status, rawBody: body } = answer;
  // Memoized: a body may be megabytes, and the view around the badge re-renders on every tab switch.
  const key = useMemo(() => JSON.stringify({ answer: { method, url, status, contentType, body } } satisfies LensRequest), [method, url, status, contentType, body]);
  return <LensBadge subject="this operation" requestKey={key} inError={inError} />;
}

/** Longest answer the lens checks as it arrives; a larger one is checked when asked (its check stops the page for a second or more). */
export const LENS_AUTO_MAX_CHARS = 1_000_000;

function LargeAnswerGate({ size, children }: { size: number; children: ReactNode }) {
  const [asked, setAsked] = useState(false);
  if (size <= LENS_AUTO_MAX_CHARS || asked) return children;
  return (
    <p className="spec-badge spec-none">
      Not checked against the public schema yet: the answer is {formatBytes(size)}, and a check of an answer this large holds the page for a moment.{' '}
      <button type="button" onClick={() => setAsked(true)}>
        Check it now
      </button>
    </p>
  );
}

/** The lens on one streamed event's data, against the schema the documentation gives that event. */
export function SpecEventBadge({ stream, event, data }: { stream: Pick<ResponseMeta, 'method' | 'url' | 'status'>; event: string; data: string }) {
  const { method, url, status } = stream;
  const key = useMemo(() => JSON.stringify({ stream: { method, url, status }, event, data } satisfies LensRequest), [method, url, status, event, data]);
  return <LensBadge subject={`event ${event}`} requestKey={key} />;
}
