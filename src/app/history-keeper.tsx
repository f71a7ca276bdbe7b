import { useEffect } from 'react';
import { useConnection } from '../lib/connection';
import { purgeOldClears, sweepCutOff } from '../db/history';
import { sweepSuiteRuns } from '../features/suites/model/suite-db';
import { useFollowActive } from '../hooks/use-history';

/** How often a visible tab looks for runs whose page was closed mid-request. */
const SWEEP_MS = 15_000;

/**
 * What keeps history true while the console is open, whatever page is shown: every durable run
 * history shows as going on (on this profile) is followed to its end; a run (or a suite run) cut off by a
 * closed or reloaded page is told as interrupted; a Clear too old to undo is let go for good.
 */
export function HistoryKeeper() {
  const connection = useConnection();
  useFollowActive(connection);
  useEffect(() => {
    void purgeOldClears().catch(() => undefined);
    const sweep = () => {
      void sweepCutOff().catch(() => undefined);
      void sweepSuiteRuns().catch(() => undefined);
    };
    sweep();
    const t = setInterval(() => {
      if (!document.hidden) sweep();
    }, SWEEP_MS);
    return () => clearInterval(t);
  }, []);
  return null;
}
