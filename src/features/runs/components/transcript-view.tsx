import { memo, useLayoutEffect, useRef } from 'react';
import { CopyButton } from '../../../components/copy-button';
import { formatCount } from '../../../lib/format';
import type { StreamLog } from '../../../engine/stream-log';
import { useFollowEnd } from './use-follow-end';

/** Past any end: the browser clamps the write to the real end, so the height need not be read. */
const FAR_DOWN = 1e9;

/**
 * A block, so that text arriving in the last chunk does not re-lay out the others; skipped
 * by layout and paint while scrolled out of view (content-visibility), with a height guessed
 * from its length until it has been shown once. Text, find-in-page and the accessibility tree
 * keep all of it.
 */
const TranscriptChunk = memo(function TranscriptChunk({ text }: { text: string }) {
  return <div style={{ contentVisibility: 'auto', containIntrinsicSize: `auto ${Math.max(1, Math.round(text.length / 100))}lh` }}>{text}</div>;
});

/**
 * The run's text as it arrives, following its end while Follow is on. `version` is the log's:
 * each new one may have added text.
 */
export function TranscriptView({ log, version }: { log: StreamLog; version: number }) {
  const box = useRef<HTMLDivElement>(null);
  const { follow, setFollow, onScroll, onWheel } = useFollowEnd(box);
  // One scroll write per render while following, no read: the render already lays out the
  // last chunk, and the write only asks for that layout a little earlier.
  useLayoutEffect(() => {
    if (follow && box.current) box.current.scrollTop = FAR_DOWN;
  }, [follow, version]);
  return (
    <>
      <div className="toolbar">
        <h3>Transcript</h3>
        <label className="field checkbox">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
        </label>
        <CopyButton text={() => log.transcriptText} label="Copy transcript" />
        {log.transcriptCut > 0 && <span className="muted">✂ {formatCount(log.transcriptCut)} characters of text cut (marked where)</span>}
      </div>
      <div ref={box} className="transcript" aria-label="Transcript" onScroll={onScroll} onWheel={onWheel}>
        {log.transcript.map((text, i) => (
          <TranscriptChunk key={i} text={text} />
        ))}
      </div>
    </>
  );
}
