import { useEffect, useRef } from 'react';
import type { LoadedRun } from '../model/run-draft';

/**
 * Says that the form holds a kept run's request, and where it ran: sending it with another
 * profile is the user's choice, made visible here rather than taken silently.
 */
export function LoadedNotice({ loaded, profileId, profileLabel }: { loaded: LoadedRun; profileId: string; profileLabel: string }) {
  const ref = useRef<HTMLDivElement>(null);
  // Focus comes here from the history below, where Run again was clicked; the response side does not scroll.
  useEffect(() => ref.current?.focus({ preventScroll: window.matchMedia('(min-width: 1100px)').matches }), [loaded.entryId]);
  const elsewhere = loaded.profileId !== undefined ? loaded.profileId !== profileId : loaded.profileLabel !== profileLabel;
  return (
    <div ref={ref} tabIndex={-1} className={elsewhere ? 'warning' : 'note'} role="note" aria-label="Loaded from history">
      <p>
        Loaded the run of {loaded.agentName} from {new Date(loaded.startedAt).toLocaleString()}: its API, mode, input and messages. Nothing is sent until you
        run it.
      </p>
      {elsewhere && (
        <p>
          It ran on profile <strong>{loaded.profileLabel}</strong>; running it now sends it with the current profile, <strong>{profileLabel}</strong>. Choose
          the profile in the connection panel first to send it where it went.
        </p>
      )}
    </div>
  );
}
