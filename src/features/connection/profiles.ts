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
  /** Each tab its own: a tab being shown to others stays masked whatever another tab does. */
  screenShare: boolean;
}

/**
 * What the browser's tabs share, in localStorage: one record per profile (where it connects)
 * and their order. One record per profile, so that two tabs changing two profiles (or one adding
 * a profile while another types a name) never write over each other: a tab writes only the
 * records it changed. The previous version's one record of every profile is read once, to move
 * to these, and kept (its scopes serve the tabs that have stated none).
 */
const RECORD = 'profile.';
const ORDER_KEY = 'profileOrder';
const LEGACY_KEY = 'profiles';
/** The tab's profile in sessionStorage; in localStorage, the one chosen last, for a new tab. */
const ACTIVE_KEY = 'activeProfile';
/** As ACTIVE_KEY: the tab's own, and the last choice for a new tab. */
const SCREEN_SHARE_KEY = 'screenShare';

/** What the browser's tabs share of a profile: where it connects. */
export type SharedProfile = Pick<Profile, 'id' | 'label' | 'mode' | 'target'>;

interface LegacyState {
  profiles?: (SharedProfile & { scopes?: unknown; remember?: unknown })[];
  activeId?: unknown;
  screenShare?: unknown;
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

/** What is said of a token, as text: what the tabs compare. */
export const factsText = ({ scopes, outcomes }: TokenFacts) => JSON.stringify({ scopes, outcomes });

export function isTokenFacts(value: unknown): value is TokenFacts {
  const v = value as TokenFacts | null;
  return typeof v === 'object' && v !== null && Array.isArray(v.scopes) && typeof v.outcomes === 'object' && v.outcomes !== null;
}

const MODES: readonly string[] = ['same-origin', 'proxy', 'direct'];

/** A record as stored, if it is one; what the tabs write and compare. */
export function sharedProfileOf(value: unknown): SharedProfile | undefined {
  const v = value as Partial<SharedProfile> | null;
  if (typeof v !== 'object' || v === null || typeof v.id !== 'string' || typeof v.label !== 'string' || typeof v.target !== 'string' || !MODES.includes(v.mode as string)) return undefined;
  return { id: v.id, label: v.label, mode: v.mode!, target: v.target };
}

/** A record as text: what the tabs compare. */
export const recordText = (p: SharedProfile) => JSON.stringify(sharedProfileOf(p));

function legacyState(): LegacyState {
  return local.get<LegacyState | null>(LEGACY_KEY, null) ?? {};
}

/**
 * What this tab has of a profile's token, from storage: its own (sessionStorage) if it has
 * any, else the device's (localStorage: remembered); what is said of it comes from the same
 * place, else from the scopes the previous version kept with the profile.
 */
export function tabSideOf(id: string): Pick<Profile, 'remember' | 'scopes' | 'outcomes'> {
  const own = tokenStore.inTab(id) !== undefined || tokenFacts.inTab(id) !== undefined;
  const device = tokenStore.onDevice(id) !== undefined || tokenFacts.onDevice(id) !== undefined;
  const kept = own ? tokenFacts.inTab(id) : tokenFacts.onDevice(id);
  const legacy = legacyState().profiles?.find((p) => p?.id === id);
  const facts = isTokenFacts(kept) ? kept : { scopes: Array.isArray(legacy?.scopes) ? (legacy.scopes as string[]) : [], outcomes: {} };
  return { remember: own ? false : device || legacy?.remember === true, scopes: facts.scopes, outcomes: facts.outcomes };
}

/** The token this tab uses for a profile: its own, or the one remembered on the device. */
export function tabTokenOf(profile: Profile): string | undefined {
  return profile.remember ? tokenStore.onDevice(profile.id) : tokenStore.inTab(profile.id);
}

/** The shared records, in their order (any record the order misses, after it). */
export function readSharedProfiles(): SharedProfile[] {
  const order = local.get<unknown>(ORDER_KEY, undefined);
  if (!Array.isArray(order)) {
    // First load after the previous version (or ever): its profiles become records.
    const legacy = (legacyState().profiles ?? []).map(sharedProfileOf).filter((p) => p !== undefined);
    return seeded(legacy.length ? legacy : [sharedProfileOf(defaultProfile())!]);
  }
  const ids = [...new Set([...order.filter((id): id is string => typeof id === 'string'), ...local.keysWith(RECORD).map((k) => k.slice(RECORD.length))])];
  const profiles = ids.map((id) => sharedProfileOf(local.get<unknown>(RECORD + id, undefined))).filter((p) => p !== undefined);
  return profiles.length ? profiles : seeded([sharedProfileOf(defaultProfile())!]);
}

/** Writes these profiles as the records and order every tab reads. */
function seeded(profiles: SharedProfile[]): SharedProfile[] {
  for (const p of profiles) local.set(RECORD + p.id, p);
  local.set(ORDER_KEY, profiles.map((p) => p.id));
  return profiles;
}

/** A tab's own choice, else the last one made in any tab, else what the previous version kept. */
function choiceOf<T>(key: string, legacy: unknown, valid: (v: unknown) => v is T, fallback: T): T {
  const tab = session.get<unknown>(key, undefined);
  if (valid(tab)) return tab;
  const last = local.get<unknown>(key, undefined);
  if (valid(last)) return last;
  // The previous version's is kept as the last choice, for the tabs opened after this one.
  if (valid(legacy)) return (local.set(key, legacy), legacy);
  return fallback;
}

export function loadProfiles(): ProfilesState {
  const profiles = readSharedProfiles().map((p) => ({ ...p, ...tabSideOf(p.id) }));
  const legacy = legacyState();
  const isProfile = (id: unknown): id is string => profiles.some((p) => p.id === id);
  const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
  return {
    profiles,
    activeId: choiceOf(ACTIVE_KEY, legacy.activeId, isProfile, profiles[0]!.id),
    screenShare: choiceOf(SCREEN_SHARE_KEY, legacy.screenShare, isBoolean, false),
  };
}

/** The last choice of profile, for a new tab: the user's own, made in this tab. */
export function rememberChoice(id: string): void {
  local.set(ACTIVE_KEY, id);
}

// --- Another tab's writes, taken in (pure: state in, state out) ---

/** A record another tab wrote: the profile as it now is; new here, it comes with this tab's side. */
export function withRecord(state: ProfilesState, record: SharedProfile): ProfilesState {
  const mine = state.profiles.find((p) => p.id === record.id);
  if (!mine) return { ...state, profiles: orderedAs(storedOrder(), [...state.profiles, { ...record, ...tabSideOf(record.id) }]) };
  if (recordText(mine) === recordText(record)) return state;
  // What the groups answered was said by the server the profile connected to.
  const moved = mine.mode !== record.mode || mine.target !== record.target;
  const next = { ...mine, ...record, ...(moved && { outcomes: {} }) };
  return { ...state, profiles: state.profiles.map((p) => (p === mine ? next : p)) };
}

/** A record another tab removed: the profile is gone here too (this tab's token for it stays in its storage, for an Undo there). */
export function withoutProfile(state: ProfilesState, id: string): ProfilesState {
  const profiles = state.profiles.filter((p) => p.id !== id);
  if (profiles.length === state.profiles.length || !profiles.length) return state;
  return { ...state, profiles, activeId: state.activeId === id ? profiles[0]!.id : state.activeId };
}

/** The order another tab wrote. */
export function withOrder(state: ProfilesState, order: unknown): ProfilesState {
  const profiles = orderedAs(Array.isArray(order) ? order : [], state.profiles);
  return profiles.every((p, i) => p === state.profiles[i]) ? state : { ...state, profiles };
}

/** The order as stored now. */
export function storedOrder(): unknown[] {
  const order = local.get<unknown>(ORDER_KEY, []);
  return Array.isArray(order) ? order : [];
}

function orderedAs(order: unknown[], profiles: Profile[]): Profile[] {
  const at = (p: Profile) => {
    const i = order.indexOf(p.id);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  return profiles.map((p, i) => [p, i] as const).sort(([a, i], [b, j]) => at(a) - at(b) || i - j).map(([p]) => p);
}

const RECORD_STORAGE_PREFIX = local.keyOf(RECORD);
/** Which profile a StorageEvent's key names as a shared record, if it does. */
export const recordOf = (key: string) => (key.startsWith(RECORD_STORAGE_PREFIX) ? key.slice(RECORD_STORAGE_PREFIX.length) : undefined);
export const ORDER_STORAGE_KEY = local.keyOf(ORDER_KEY);

/**
 * What saving needs besides the state: what this tab last took in from other tabs (written
 * back, it would wake them for nothing or, stale, undo them), and whether this tab itself
 * changed the order (adding, deleting or restoring a profile: only then is the order written).
 */
export interface SaveContext {
  records: Map<string, string | null>;
  /** What is said of a remembered token, as another tab last wrote it, by profile. */
  facts: Map<string, string>;
  orderChanged: boolean;
}

export function newSaveContext(): SaveContext {
  return { records: new Map(), facts: new Map(), orderChanged: false };
}

/**
 * Saves everything but tokens, which never enter these records. Only what this tab changed
 * since `before` is written: a record per profile changed, added or removed, and the order when
 * this tab changed it; never a record, or what is said of a token, equal to what was just taken
 * in from another tab. What is said of a token goes where the token is kept. The choice of
 * profile and screen-share mode are the tab's. The first save after loading writes nothing to
 * share: everything was just read.
 */
export function saveProfiles(state: ProfilesState, before: ProfilesState | undefined, context: SaveContext): void {
  session.set(ACTIVE_KEY, state.activeId);
  session.set(SCREEN_SHARE_KEY, state.screenShare);
  if (!before) return;
  if (before.screenShare !== state.screenShare) local.set(SCREEN_SHARE_KEY, state.screenShare);
  for (const p of state.profiles) {
    const old = before.profiles.find((x) => x.id === p.id);
    const text = recordText(p);
    if (!old || recordText(old) !== text) {
      if (context.records.get(p.id) !== text) local.set(RECORD + p.id, sharedProfileOf(p));
      context.records.delete(p.id);
    }
    if (old && old.scopes === p.scopes && old.outcomes === p.outcomes && old.remember === p.remember) continue;
    // Where this tab keeps the token; the other place is another tab's (moves are the actions' own).
    const facts: TokenFacts = { scopes: p.scopes, outcomes: p.outcomes };
    if (!p.remember) tokenFacts.keepInTab(p.id, facts);
    else if (context.facts.get(p.id) !== factsText(facts)) tokenFacts.keepOnDevice(p.id, facts);
    context.facts.delete(p.id);
  }
  for (const p of before.profiles) {
    if (state.profiles.some((x) => x.id === p.id)) continue;
    if (context.records.get(p.id) !== null) local.remove(RECORD + p.id);
    context.records.delete(p.id);
  }
  if (context.orderChanged) local.set(ORDER_KEY, state.profiles.map((p) => p.id));
  context.orderChanged = false;
}

/** The record of a profile as stored now, null when there is none. */
export function storedRecord(id: string): SharedProfile | null | undefined {
  const value = local.get<unknown>(RECORD + id, null);
  return value === null ? null : sharedProfileOf(value);
}

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
