import { useCallback, useState } from 'react';
import { local } from '../../lib/storage';

const KEY = 'recentGroups';
const MAX = 8;

export function useRecentGroups(): [string[], (group: string) => void] {
  const [recent, setRecent] = useState<string[]>(() => local.get<string[]>(KEY, []));
  // Stable, and a no-op when the group is already the most recent: callers may call it on every visit.
  const remember = useCallback(
    (group: string) =>
      setRecent((list) => {
        if (list[0] === group) return list;
        const next = [group, ...list.filter((g) => g.toLowerCase() !== group.toLowerCase())].slice(0, MAX);
        local.set(KEY, next);
        return next;
      }),
    [],
  );
  return [recent, remember];
}
