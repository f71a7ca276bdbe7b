import type { ConnectionMode, GroupOutcome } from '../../lib/connection';
import { local, tokenStore } from '../../lib/storage';

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
  activeId: string;
  screenShare: boolean;
}

const KEY = 'profiles';

export function newProfileId(): string {
  return `p_${crypto.getRandomValues(new Uint32Array(2)).join('')}`;
}

export function defaultProfile(): Profile {
  return { id: 'reference', label: 'Reference service', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} };
}

export function loadProfiles(): ProfilesState {
  const saved = local.get<Partial<ProfilesState> | null>(KEY, null);
  const profiles = Array.isArray(saved?.profiles) && saved.profiles.length ? saved.profiles : [defaultProfile()];
  const activeId = profiles.some((p) => p.id === saved?.activeId) ? saved!.activeId! : profiles[0]!.id;
  return { profiles, activeId, screenShare: saved?.screenShare === true };
}

/** Saves everything but tokens, which never enter this record. */
export function saveProfiles(state: ProfilesState): void {
  local.set(KEY, state);
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
