import { useState } from 'react';
import { local } from '../../lib/storage';

const KEY = 'recentGroups';
const MAX = 8;

export function useRecentGroups(): [string[], (group: string) => void] {
  const [recent, setRecent] = useState<string[]>(() => local.get<string[]>(KEY, []));
  const remember = (group: string) =>
    setRecent((list) => {
      const next = [group, ...list.filter((g) => g.toLowerCase() !== group.toLowerCase())].slice(0, MAX);
      local.set(KEY, next);
      return next;
    });
  return [recent, remember];
}
