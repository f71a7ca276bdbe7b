import { useEffect, useRef } from 'react';
import { useConnection, type ActiveConnection } from '../lib/connection';
import { purgeOldClears, sweepCutOff, type FindRun } from '../db/history';
import { findDurableRunByClientId } from '../engine/send/durable-run';
import { sweepSuiteRuns } from '../features/suites/model/suite-db';
import { useFollowActive } from '../hooks/use-history';

/** How often a visible tab looks for runs whose page was closed mid-request. */
const SWEEP_MS = 15_000;

/**
 * How the sweep finds a durable run cut off before its id arrived: only a run sent to the bundled
 * reference service (which kept the entry's id with it) on the current profile, whose token
 * started it, can be asked for; of any other, nothing can be known.
 */
function finderOf(connection: () => ActiveConnection): FindRun {
  return async (entry) => {
    const c = connection();
    if (entry.target.mode !== 'same-origin' || c.mode !== 'same-origin' || entry.target.profileId !== c.profileId || !c.token) return undefined;
    return findDurableRunByClientId(c, entry.request.agentId, entry.id);
  };
}

/**
 * What keeps history true while the console is open, whatever page is shown: every durable run
 * history shows as going on (on this profile) is followed to its end; a run (or a suite run) cut
 * off by a closed or reloaded page is told as interrupted (a durable one found again when the
 * bundled service can say which run it was); a Clear too old to undo is let go for good.
 */
export function HistoryKeeper() {
  const connection = useConnection();
  const current = useRef(connection);
  useEffect(() => {
    current.current = connection;
  }, [connection]);
  useFollowActive(connection);
  useEffect(() => {
    void purgeOldClears().catch(() => undefined);
    const findRun = finderOf(() => current.current);
    const sweep = () => {
      void sweepCutOff({ findRun }).catch(() => undefined);
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
