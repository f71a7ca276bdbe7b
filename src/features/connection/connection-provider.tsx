import { createContext, useCallback, useContext, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { ConnectionContext, ConnectionsContext, fingerprintOf, type ActiveConnection, type Connections, type GroupOutcome } from '../../lib/connection';
import { tokenFacts } from '../../lib/storage';
import {
  baseUrlOf,
  loadProfiles,
  profileProblem,
  rememberChoice,
  saveProfiles,
  tabTokenOf,
  tokenStore,
  newSaveContext,
  type SaveContext,
  type Profile,
  type ProfilesState,
  type TokenFacts,
} from './profiles';
import { useOtherTabs, type ProfilesNotice } from './use-other-tabs';

export interface ProfilesApi {
  state: ProfilesState;
  active: Profile;
  token: string | undefined;
  /** Any profile's token in this tab (or remembered on this device). */
  tokenOf(id: string): string | undefined;
  update(id: string, patch: Partial<Omit<Profile, 'id'>>): void;
  add(profile: Profile, token?: string): void;
  remove(id: string): void;
  /** Puts a deleted profile back, with its token, where it stood; active again if it was. */
  restore(profile: Profile, token: string | undefined, at: number, makeActive: boolean): void;
  activate(id: string): void;
  /** Sets the active profile's token; `remember`, when given, also sets where it is kept. */
  setToken(token: string | undefined, remember?: boolean): void;
  setScreenShare(on: boolean): void;
  /** What another tab changed for this one, said once. */
  notice: ProfilesNotice | undefined;
  dismissNotice(): void;
}

const ProfilesContext = createContext<ProfilesApi | null>(null);

/** The connection feature's own view of profiles and tokens; other features use lib/connection. */
export function useProfiles(): ProfilesApi {
  const api = useContext(ProfilesContext);
  if (!api) throw new Error('useProfiles must be used inside ConnectionProvider.');
  return api;
}

export function ConnectionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<ProfilesState>(loadProfiles);
  const active = state.profiles.find((p) => p.id === state.activeId) ?? state.profiles[0]!;
  const [tokens, setTokens] = useState<Record<string, string | undefined>>(() => Object.fromEntries(state.profiles.map((p) => [p.id, tabTokenOf(p)])));

  // Saved in the commit that shows the change, not in a later task: a page left (or reloaded)
  // the moment it shows a group's outcome, or a profile's edit, had not always kept it.
  const saved = useRef<ProfilesState | undefined>(undefined);
  const saving = useRef<SaveContext>(undefined);
  useLayoutEffect(() => {
    saving.current ??= newSaveContext();
    saveProfiles(state, saved.current, saving.current);
    saved.current = state;
  }, [state]);
  // An outcome belongs to the profile whose connection sent the request, not to the one active
  // when the answer arrives: the user may have switched meanwhile, and "Run on both" sends with
  // a profile that is not active at all. It also belongs to the token that sent it: a new token
  // starts with no outcomes, and an answer to the old one says nothing about it; so does the
  // server it was sent to. So one recorder per profile, token and server, stable while they
  // are; once one changes it records nothing, and the new recorder is a new function, so what
  // reports outcomes reports them again.
  const [recorders] = useState(() => new Map<string, (group: string, outcome: GroupOutcome) => void>());
  const recorderOf = useCallback((profileId: string, identity: string) => {
    const key = recorderKey(profileId, identity);
    let record = recorders.get(key);
    if (!record) {
      const self = (group: string, outcome: GroupOutcome) => {
        if (recorders.get(key) !== self) return;
        const k = group.toLowerCase();
        setState((s) => {
          const p = s.profiles.find((x) => x.id === profileId);
          if (!p || p.outcomes[k] === outcome) return s;
          return { ...s, profiles: s.profiles.map((x) => (x === p ? { ...x, outcomes: { ...x.outcomes, [k]: outcome } } : x)) };
        });
      };
      record = self;
      recorders.set(key, record);
    }
    return record;
  }, [recorders]);
  const forgetRecorders = useCallback(
    (profileId: string) => {
      for (const key of recorders.keys()) if (key.startsWith(recorderKey(profileId, ''))) recorders.delete(key);
    },
    [recorders],
  );

  // What the storage handler and the actions read: the state and tokens of the last commit.
  const latest = useRef({ state, tokens });
  useLayoutEffect(() => {
    latest.current = { state, tokens };
  });
  const [notice, setNotice] = useState<ProfilesNotice | undefined>(undefined);
  useOtherTabs(latest, saving, setState, setTokens, setNotice, forgetRecorders);

  const update = useCallback((id: string, patch: Partial<Omit<Profile, 'id'>>) => {
    setState((s) => ({ ...s, profiles: s.profiles.map((p) => (p.id === id ? { ...p, ...patch } : p)) }));
    // Another server: what the old one answered is not about it (its outcomes are cleared too).
    if (patch.mode !== undefined || patch.target !== undefined) forgetRecorders(id);
    if (patch.remember !== undefined) {
      // Moving the token, and what is said of it, between this tab and the device follows the
      // choice at once; unticked, the device forgets them (the tabs that used them keep theirs).
      const { state: s, tokens: t } = latest.current;
      const p = s.profiles.find((x) => x.id === id);
      tokenStore.set(id, t[id], patch.remember);
      if (p) tokenFacts.set(id, { scopes: patch.scopes ?? p.scopes, outcomes: patch.outcomes ?? p.outcomes } satisfies TokenFacts, patch.remember);
    }
  }, [forgetRecorders]);

  const token = tokens[active.id];
  const api: ProfilesApi = {
    state,
    active,
    token,
    tokenOf: (id) => tokens[id],
    update,
    add: (profile, newToken) => {
      rememberChoice(profile.id);
      saving.current!.orderChanged = true;
      setState((s) => ({ ...s, profiles: [...s.profiles, profile], activeId: profile.id }));
      tokenStore.set(profile.id, newToken, profile.remember);
      setTokens((t) => ({ ...t, [profile.id]: newToken }));
    },
    remove: (id) => {
      saving.current!.orderChanged = true;
      forgetRecorders(id);
      tokenStore.set(id, undefined, false);
      tokenFacts.set(id, undefined, false);
      setTokens((t) => ({ ...t, [id]: undefined }));
      setState((s) => {
        const rest = s.profiles.filter((p) => p.id !== id);
        if (!rest.length) return s;
        return { ...s, profiles: rest, activeId: s.activeId === id ? rest[0]!.id : s.activeId };
      });
    },
    restore: (profile, oldToken, at, makeActive) => {
      if (makeActive) rememberChoice(profile.id);
      saving.current!.orderChanged = true;
      setState((s) => {
        if (s.profiles.some((p) => p.id === profile.id)) return s;
        const profiles = [...s.profiles];
        profiles.splice(Math.min(at, profiles.length), 0, profile);
        return { ...s, profiles, activeId: makeActive ? profile.id : s.activeId };
      });
      tokenStore.set(profile.id, oldToken, profile.remember);
      setTokens((t) => ({ ...t, [profile.id]: oldToken }));
    },
    activate: (id) => {
      rememberChoice(id);
      setState((s) => ({ ...s, activeId: id }));
    },
    setToken: (value, remember) => {
      const clean = value?.trim() || undefined;
      const keep = remember ?? active.remember;
      // On the device, or moved off it (the device forgets it); else this tab's alone, and a
      // token the device remembers for the tabs that use it stays.
      if (keep || active.remember) tokenStore.set(active.id, clean, keep);
      else tokenStore.keepInTab(active.id, clean);
      setTokens((t) => ({ ...t, [active.id]: clean }));
      // What the groups answered was about the old token; a new one starts with none.
      const fresh = clean !== token;
      if (keep !== active.remember) tokenFacts.set(active.id, { scopes: active.scopes, outcomes: fresh ? {} : active.outcomes } satisfies TokenFacts, keep);
      if (fresh) forgetRecorders(active.id);
      if (fresh || keep !== active.remember) {
        setState((s) => ({ ...s, profiles: s.profiles.map((p) => (p.id === active.id ? { ...p, remember: keep, ...(fresh && { outcomes: {} }) } : p)) }));
      }
    },
    setScreenShare: (on) => setState((s) => ({ ...s, screenShare: on })),
    notice,
    dismissNotice: () => setNotice(undefined),
  };

  const connectionFor = useCallback(
    (profile: Profile, profileToken: string | undefined): ActiveConnection => ({
      baseUrl: baseUrlOf(profile),
      token: profileToken,
      problem: profileProblem(profile),
      profileId: profile.id,
      profileLabel: profile.label,
      mode: profile.mode,
      target: profile.mode === 'same-origin' ? '' : profile.target,
      scopes: profile.scopes,
      fingerprint: fingerprintOf(profileToken),
      displayBaseUrl: profile.mode === 'same-origin' ? window.location.origin : profile.target,
      outcomes: profile.outcomes,
      // The server too: an answer from the one a profile pointed at before says nothing of the new one.
      recordOutcome: recorderOf(profile.id, `${fingerprintOf(profileToken)}\n${profile.mode}\n${profile.target}`),
      screenShare: state.screenShare,
    }),
    [recorderOf, state.screenShare],
  );
  const connection = useMemo<ActiveConnection>(() => connectionFor(active, token), [connectionFor, active, token]);
  const connections = useMemo<Connections>(
    () => ({
      profiles: state.profiles.map((p) => ({ id: p.id, label: p.label })),
      connectionOf: (id) => {
        const p = state.profiles.find((x) => x.id === id);
        return p && connectionFor(p, tokens[p.id]);
      },
    }),
    [state.profiles, tokens, connectionFor],
  );

  return (
    <ProfilesContext.Provider value={api}>
      <ConnectionContext.Provider value={connection}>
        <ConnectionsContext.Provider value={connections}>{children}</ConnectionsContext.Provider>
      </ConnectionContext.Provider>
    </ProfilesContext.Provider>
  );
}

function recorderKey(profileId: string, identity: string): string {
  return `${profileId}\n${identity}`;
}
