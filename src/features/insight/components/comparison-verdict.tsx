/** The comparison's verdict: whether the two answers match, and where not, what differs or how each run ended. */
import { formatCount } from '../../../lib/format';
import type { TextDiff } from '../../../lib/word-diff';
import type { HistoryEntry } from '../../../engine/history-entry';
import { statusText } from '../../../engine/run-machine';
import { faultOfRequest } from '../../../engine/run-request';
import { answersMatch, splitByApi, type ComparedRun, type HeaderDifference, type ValueDifference } from '../model/comparison';
import { ended, type Side } from './comparison-side';

/** Where two bodies sent to the two APIs differ: where the APIs make them, and where the requests themselves do. */
function bodyWords(body: readonly ValueDifference[]): string {
  if (!body.length) return 'The bodies are the same.';
  const { api, requests } = splitByApi(body);
  const list = (ds: ValueDifference[]) => ds.map((d) => d.pointer).join(', ');
  return [
    api.length ? `The bodies differ where the APIs do (${list(api)}).` : '',
    requests.length ? `They also differ where the requests do, not the APIs (${list(requests)}).` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** Whether the run ended with its answer: the only ends whose answers are compared. */
function answeredRun(entry: HistoryEntry): boolean {
  return entry.status === 'done' || entry.status === 'SUCCEEDED';
}

/** How a run ended, its HTTP status, its problem and the fault it was sent with, in a line. */
function endedAs(entry: HistoryEntry): string {
  const http = entry.meta?.status !== undefined ? ` (HTTP ${entry.meta.status})` : '';
  const fault = faultOfRequest(entry.request);
  return [
    `${statusText(entry.status, entry.unknownState)}${http}`,
    entry.problem && !answeredRun(entry) ? `: ${entry.problem}` : '',
    fault ? ` Sent with the fault “${fault}” (Inject a fault).` : '',
  ].join('');
}

export function ComparisonVerdict({
  a,
  b,
  ra,
  rb,
  diff,
  body,
  headers,
  onStop,
}: {
  a: Side;
  b: Side;
  ra: ComparedRun;
  rb: ComparedRun;
  /** The answers' word diff, once both runs have ended. */
  diff: TextDiff | undefined;
  body: readonly ValueDifference[];
  headers: readonly HeaderDifference[];
  onStop?(): void;
}) {
  const bothEnded = ended(a.entry) && ended(b.entry);
  // Two runs that gave no answer (refused, failed, stopped) have equal empty answers: that is
  // not a match, and the verdict says what each ended as, and why where it is known.
  const sides = [
    ['A', a],
    ['B', b],
  ] as const;
  const unanswered = sides.filter(([, side]) => !answeredRun(side.entry)).map(([name]) => name);
  const match = bothEnded && unanswered.length === 0 && answersMatch(ra.transcript, rb.transcript);
  const migration = ra.request.flavour !== rb.request.flavour;
  const changed = diff ? diff.parts.filter((p) => p.added || p.removed).length : 0;
  return (
    <div className={`verdict ${bothEnded ? (match ? 'same' : 'differs') : ''}`} role="status" aria-label="Verdict">
      {!bothEnded ? (
        <p>
          Both runs are compared once they have ended; what arrived so far shows below.{' '}
          {onStop && (
            <button type="button" onClick={onStop}>
              Stop both
            </button>
          )}
        </p>
      ) : unanswered.length ? (
        <>
          <p>
            <strong>{unanswered.length === 2 ? 'Neither run ended with an answer' : `Run ${unanswered[0]} did not end with an answer`}</strong>; what each sent before it ended is below:
          </p>
          <ul>
            {sides.map(([name, side]) => (
              <li key={name}>
                {name}: {endedAs(side.entry)}
              </li>
            ))}
          </ul>
        </>
      ) : match ? (
        <p>
          <strong>The answers match</strong>
          {migration ? ': the replacement answers the same as the legacy endpoint.' : '.'}
        </p>
      ) : (
        <p>
          {/* Too different to compare word by word, the parts counted are the answers' wholes: a count beside that read as a contradiction. */}
          <strong>The answers differ</strong>
          {diff?.tooDifferent
            ? ' in too many places to compare word by word: where they differ, each is marked whole below (struck out: only in A; underlined: only in B).'
            : `: ${changed} ${changed === 1 ? 'part differs' : 'parts differ'}, marked below (struck out: only in A; underlined: only in B).`}
          {diff?.truncatedAt && ` Where they differ, the first ${formatCount(diff.truncatedAt)} characters were compared word by word and the rest is marked whole.`}
        </p>
      )}
      {bothEnded && migration && (
        <p>
          {bodyWords(body)}{' '}
          {headers.length ? `Headers that differ: ${headers.map((h) => h.name).join(', ')}.` : 'No header differs.'}
        </p>
      )}
    </div>
  );
}
