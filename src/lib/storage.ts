/**
 * Browser storage of the console. Profiles (label, where they connect) are kept in
 * localStorage, shared by the browser's tabs; tokens are kept apart, in sessionStorage by
 * default and in localStorage only when the user ticks "Remember on this device", and what is
 * stated of a token (its scopes, the groups' answers) is kept with it. Which profile a tab
 * uses is the tab's own.
 */

const PREFIX = 'mac.';

function read<T>(store: Storage, key: string, fallback: T): T {
  try {
    const raw = store.getItem(PREFIX + key);
    return raw === null ? fallback : (JSON.parse(raw) as T);
  } catch {
    return fallback;
  }
}

function write(store: Storage, key: string, value: unknown): void {
  try {
    store.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // Storage full or disabled (private mode): the console keeps working from memory.
  }
}

function remove(store: Storage, key: string): void {
  try {
    store.removeItem(PREFIX + key);
  } catch {
    // as above
  }
}

export const local = {
  get: <T>(key: string, fallback: T) => read(localStorage, key, fallback),
  set: (key: string, value: unknown) => write(localStorage, key, value),
  remove: (key: string) => remove(localStorage, key),
  /** The key as stored, for matching a StorageEvent. */
  keyOf: (key: string) => PREFIX + key,
  /** The keys (without the prefix) that begin with `start`. */
  keysWith(start: string): string[] {
    try {
      return Object.keys(localStorage).filter((k) => k.startsWith(PREFIX + start)).map((k) => k.slice(PREFIX.length));
    } catch {
      return [];
    }
  },
};

export const session = {
  get: <T>(key: string, fallback: T) => read(sessionStorage, key, fallback),
  set: (key: string, value: unknown) => write(sessionStorage, key, value),
};

/**
 * A value kept per profile where its token is: in this tab's sessionStorage, or in
 * localStorage when the profile's token is remembered on this device.
 */
function keptWithToken<T>(prefix: string) {
  const key = (profileId: string) => `${prefix}.${profileId}`;
  return {
    inTab: (profileId: string) => read<T | undefined>(sessionStorage, key(profileId), undefined),
    onDevice: (profileId: string) => read<T | undefined>(localStorage, key(profileId), undefined),
    set(profileId: string, value: T | undefined, remember: boolean): void {
      remove(sessionStorage, key(profileId));
      remove(localStorage, key(profileId));
      if (value === undefined) return;
      write(remember ? localStorage : sessionStorage, key(profileId), value);
    },
    /** The device's copy, leaving this tab's as it is. */
    keepOnDevice(profileId: string, value: T): void {
      write(localStorage, key(profileId), value);
    },
    /** A copy for this tab alone, leaving the device's as it is. */
    keepInTab(profileId: string, value: T | undefined): void {
      if (value === undefined) remove(sessionStorage, key(profileId));
      else write(sessionStorage, key(profileId), value);
    },
    /** The profile whose value a StorageEvent's key names, if it names one. */
    profileOf(storedKey: string | null): string | undefined {
      const start = PREFIX + prefix + '.';
      return storedKey?.startsWith(start) ? storedKey.slice(start.length) : undefined;
    },
  };
}

const tokens = keptWithToken<string>('token');

/** Tokens, by profile id: where they live follows the profile's "remember" choice. */
export const tokenStore = {
  ...tokens,
  set: (profileId: string, token: string | undefined, remember: boolean) => tokens.set(profileId, token || undefined, remember),
};

/**
 * What is said of a profile's token, by profile id: the scopes the user states it has and what
 * the groups answered it. Kept with the token, and as long: another tab, with a token of its
 * own for the same profile, states its own.
 */
export const tokenFacts = keptWithToken<unknown>('stated');
