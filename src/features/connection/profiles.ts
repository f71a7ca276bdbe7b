import type { ConnectionMode, GroupOutcome } from '../../lib/connection';
import { local, session, tokenFacts, tokenStore } from '../../lib/storage';

/** A named way to connect: where to, and what the user says the token may do. */
export interface Profile {
  id: string;
  label: string;
  mode: ConnectionMode;
  /** direct: the instance URL; proxy: the upstream origin; same-origin: ''. */
  target: string;
  scopes: string[];
  /** Keep the token in localStorage instead of sessionStorage. */
  remember: boolean;
  outcomes: Record<string, GroupOutcome>;
}

export interface ProfilesState {
  profiles: Profile[];
  /** The profile this tab uses: each tab its own. */
  activeId: string;
  screenShare: boolean;
}

const KEY = 'profiles';
/** The tab's profile in sessionStorage; in localStorage, the one chosen last, for a new tab. */
const ACTIVE_KEY = 'activeProfile';

/** What a profile's record in localStorage holds: where it connects, not what is said of a token. */
type SharedProfile = Omit<Profile, 'scopes' | 'outcomes'> & Partial<Pick<Profile, 'scopes' | 'outcomes'>>;

interface SharedState {
  profiles: SharedProfile[];
  screenShare: boolean;
  /** Written by versions that kept one choice for every tab; read as the last choice. */
  activeId?: string;
}

export interface TokenFacts {
  scopes: string[];
  outcomes: Record<string, GroupOutcome>;
}

export function newProfileId(): string {
  return `p_${crypto.getRandomValues(new Uint32Array(2)).join('')}`;
}

export function defaultProfile(): Profile {
  return { id: 'reference', label: 'Reference service', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} };
}

function isTokenFacts(value: unknown): value is TokenFacts {
  const v = value as TokenFacts | null;
  return typeof v === 'object' && v !== null && Array.isArray(v.scopes) && typeof v.outcomes === 'object' && v.outcomes !== null;
}

/**
 * A shared record with what this tab says of the profile's token. A profile this tab has
 * in hand keeps its own; another is read from where its token is kept, or, from a record
 * saved before tokens had facts of their own, from the record itself.
 */
function withFacts(shared: SharedProfile, mine: Profile | undefined): Profile {
  const { scopes, outcomes, ...where } = shared;
  const kept = tokenFacts.get(shared.id);
  const facts = mine ?? (isTokenFacts(kept) ? kept : { scopes: scopes ?? [], outcomes: outcomes ?? {} });
  return { ...where, scopes: facts.scopes, outcomes: facts.outcomes };
}

function loadShared(): SharedState {
  const saved = local.get<Partial<SharedState> | null>(KEY, null);
  const profiles = Array.isArray(saved?.profiles) && saved.profiles.length ? saved.profiles : [defaultProfile()];
  return { profiles, screenShare: saved?.screenShare === true, ...(saved?.activeId !== undefined && { activeId: saved.activeId }) };
}

export function loadProfiles(): ProfilesState {
  const shared = loadShared();
  const profiles = shared.profiles.map((p) => withFacts(p, undefined));
  const has = (id: unknown): id is string => profiles.some((p) => p.id === id);
  const tab = session.get<unknown>(ACTIVE_KEY, undefined);
  const last = local.get<unknown>(ACTIVE_KEY, shared.activeId);
  const activeId = has(tab) ? tab : has(last) ? last : profiles[0]!.id;
  return { profiles, activeId, screenShare: shared.screenShare };
}

/**
 * This tab's state after another tab saved the profiles: their list and settings as saved,
 * this tab's token facts and choice of profile (unless that profile is gone).
 */
export function adoptSavedProfiles(state: ProfilesState): ProfilesState {
  const shared = loadShared();
  const profiles = shared.profiles.map((p) => withFacts(p, state.profiles.find((x) => x.id === p.id)));
  const activeId = profiles.some((p) => p.id === state.activeId) ? state.activeId : profiles[0]!.id;
  return { profiles, activeId, screenShare: shared.screenShare };
}

/**
 * Saves everything but tokens, which never enter this record. Profiles go to localStorage
 * without what is said of their tokens, which goes where each token is kept; only the facts
 * that changed since `before` are written, so that a tab does not write back another's over
 * a remembered token's. The record written is the same in every tab that has adopted it, so
 * writing it again does not wake the others.
 */
export function saveProfiles(state: ProfilesState, before: ProfilesState | undefined): void {
  local.set(KEY, {
    profiles: state.profiles.map(({ id, label, mode, target, remember }) => ({ id, label, mode, target, remember })),
    screenShare: state.screenShare,
  });
  session.set(ACTIVE_KEY, state.activeId);
  // A choice made in this tab (not a reload's) is the one a new tab opens with.
  if (before && before.activeId !== state.activeId) local.set(ACTIVE_KEY, state.activeId);
  for (const p of state.profiles) {
    const old = before?.profiles.find((x) => x.id === p.id);
    if (old && old.scopes === p.scopes && old.outcomes === p.outcomes && old.remember === p.remember) continue;
    tokenFacts.set(p.id, { scopes: p.scopes, outcomes: p.outcomes } satisfies TokenFacts, p.remember);
  }
  for (const p of before?.profiles ?? []) if (!state.profiles.some((x) => x.id === p.id)) tokenFacts.set(p.id, undefined, false);
}

/** The ids of the profiles as saved (by this tab or another). */
export function savedProfileIds(): string[] {
  return loadShared().profiles.map((p) => p.id);
}

/** localStorage's key of the saved profiles: another tab's write of it is adopted (adoptSavedProfiles). */
export const SAVED_PROFILES_KEY = local.keyOf(KEY);

/** Why the profile cannot send requests yet, so the token never goes to a fallback address. */
export function profileProblem(profile: Profile): string | undefined {
  if (profile.mode === 'direct' && !profile.target) {
    return 'This profile connects directly to an instance but has no valid instance URL yet: enter it in the connection panel.';
  }
  if (profile.mode === 'proxy' && !profile.target) {
    return 'This profile connects through the console’s server but no upstream is chosen: start the console with npm start -- --upstream <instance origin>.';
  }
  return undefined;
}

export function baseUrlOf(profile: Profile): string {
  if (profile.mode === 'same-origin') return '';
  if (profile.mode === 'proxy') return profile.target ? `/upstream/${new URL(profile.target).host}` : '';
  return profile.target.replace(/\/+$/, '');
}

/** Where a profile connects, in a few words. */
export function targetText(p: Profile): string {
  if (p.mode === 'same-origin') return 'bundled service';
  if (p.mode === 'proxy') return p.target ? `${p.target} via the console’s server` : 'no upstream';
  return p.target || 'no instance URL';
}

/** Parses what the user typed as scopes: separated by spaces, commas or new lines. */
export function parseScopes(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean))];
}

export { tokenStore };
