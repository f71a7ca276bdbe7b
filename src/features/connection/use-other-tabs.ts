import { useEffect, type Dispatch, type RefObject, type SetStateAction } from 'react';
import { tokenFacts } from '../../lib/storage';
import {
  factsText,
  isTokenFacts,
  ORDER_STORAGE_KEY,
  recordOf,
  recordText,
  sharedProfileOf,
  storedOrder,
  storedRecord,
  tabSideOf,
  tabTokenOf,
  targetText,
  tokenStore,
  withOrder,
  withoutProfile,
  withRecord,
  type ProfilesState,
  type SaveContext,
  type SharedProfile,
  type TokenFacts,
} from './profiles';

export interface ProfilesNotice {
  id: number;
  text: string;
}

/** How long after another tab's write this tab reads storage again, to take in where it settled. */
const SETTLE_MS = 150;

type Tokens = Record<string, string | undefined>;

/**
 * Other tabs write what the browser's tabs share (localStorage): this tab takes it in. `latest`
 * is the state and tokens of the last commit; `forgetRecorders` drops a profile's outcome
 * recorders once another tab points it at another server.
 */
export function useOtherTabs(
  latest: RefObject<{ state: ProfilesState; tokens: Tokens }>,
  saving: RefObject<SaveContext | undefined>,
  setState: Dispatch<SetStateAction<ProfilesState>>,
  setTokens: Dispatch<SetStateAction<Tokens>>,
  setNotice: Dispatch<SetStateAction<ProfilesNotice | undefined>>,
  forgetRecorders: (profileId: string) => void,
): void {
  useEffect(() => {
    const record = (id: string, value: SharedProfile | null, at: number) => {
      const { state: s, tokens: t } = latest.current;
      saving.current!.records.set(id, value && recordText(value));
      const mine = s.profiles.find((p) => p.id === id);
      if (value === null) {
        if (!mine) return;
        setState((now) => withoutProfile(now, id));
        if (s.activeId === id && s.profiles.length > 1) {
          const next = s.profiles.find((p) => p.id !== id)!;
          setNotice({ id: at, text: `“${mine.label}” was deleted in another tab; this tab now uses “${next.label}”.` });
        }
        return;
      }
      if (mine && recordText(mine) === recordText(value)) return;
      setState((now) => withRecord(now, value));
      if (!(id in t)) setTokens((now) => ({ ...now, [id]: tabTokenOf({ ...value, ...tabSideOf(id) }) }));
      if (mine && (mine.mode !== value.mode || mine.target !== value.target)) {
        forgetRecorders(id);
        if (s.activeId === id) setNotice({ id: at, text: `“${value.label}” now connects to ${targetText({ ...mine, ...value })}: changed in another tab.` });
      }
    };
    /** What another tab says of the remembered token this tab uses too. */
    const facts = (id: string, value: unknown) => {
      const { state: s, tokens: t } = latest.current;
      const p = s.profiles.find((x) => x.id === id);
      if (!p?.remember || !isTokenFacts(value) || t[id] !== tokenStore.onDevice(id)) return;
      const text = factsText(value);
      if (factsText(p) === text) return;
      saving.current!.facts.set(id, text);
      setState((now) => ({ ...now, profiles: now.profiles.map((x) => (x.id === id ? { ...x, scopes: value.scopes, outcomes: value.outcomes } : x)) }));
    };
    // An event can carry an older value than storage holds by the time it is handled, or come
    // after this tab's own newer write: a moment later, what storage holds is taken in too.
    const settling = new Map<string, ReturnType<typeof setTimeout>>();
    const settle = (key: string, check: () => void) => {
      clearTimeout(settling.get(key));
      settling.set(key, setTimeout(check, SETTLE_MS));
    };
    const onStorage = (e: StorageEvent) => {
      if (e.storageArea !== localStorage || e.key === null) return;
      const key = e.key;
      const recordId = recordOf(key);
      if (recordId !== undefined) {
        // A profile added, renamed, moved or deleted there: taken in (never written back), so
        // that this tab's next save, which writes only what it changed, drops nothing of it.
        const value = e.newValue === null ? null : sharedProfileOf(parsed(e.newValue));
        if (value !== undefined) record(recordId, value, e.timeStamp);
        settle(key, () => {
          const stored = storedRecord(recordId);
          if (stored !== undefined) record(recordId, stored, performance.now());
        });
        return;
      }
      if (key === ORDER_STORAGE_KEY) {
        if (e.newValue !== null) setState((now) => withOrder(now, parsed(e.newValue!)));
        settle(key, () => setState((now) => withOrder(now, storedOrder())));
        return;
      }
      const factsOf = tokenFacts.profileOf(key);
      if (factsOf !== undefined) {
        if (e.newValue !== null) facts(factsOf, parsed(e.newValue));
        settle(key, () => facts(factsOf, tokenFacts.onDevice(factsOf)));
        return;
      }
      const tokenOf = tokenStore.profileOf(key);
      const { state: s, tokens: t } = latest.current;
      const p = s.profiles.find((x) => x.id === tokenOf);
      // Only a tab that uses the token remembered on the device is concerned.
      if (!p?.remember) return;
      const mine = t[p.id];
      const device = tokenStore.onDevice(p.id);
      if (mine !== undefined && mine !== device) {
        // Another tab remembered another token on this device, or forgot this one: this tab
        // keeps the one it has, and what it said of it, for itself.
        tokenStore.keepInTab(p.id, mine);
        tokenFacts.keepInTab(p.id, { scopes: p.scopes, outcomes: p.outcomes } satisfies TokenFacts);
        setState((now) => ({ ...now, profiles: now.profiles.map((x) => (x.id === p.id ? { ...x, remember: false } : x)) }));
      } else if (mine === undefined && device !== undefined) {
        setTokens((now) => ({ ...now, [p.id]: device }));
      }
    };
    window.addEventListener('storage', onStorage);
    return () => {
      window.removeEventListener('storage', onStorage);
      for (const timer of settling.values()) clearTimeout(timer);
    };
  }, [latest, saving, setState, setTokens, setNotice, forgetRecorders]);
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
