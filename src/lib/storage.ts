/**
 * Browser storage of the console. Profiles (label, base URL, stated scopes) are kept in
 * localStorage; tokens are kept apart, in sessionStorage by default and in localStorage
 * only when the user ticks "Remember on this device".
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
};

/** Tokens, by profile id: where they live follows the profile's "remember" choice. */
export const tokenStore = {
  get(profileId: string): string | undefined {
    return read<string | undefined>(sessionStorage, `token.${profileId}`, undefined) ?? read<string | undefined>(localStorage, `token.${profileId}`, undefined);
  },
  set(profileId: string, token: string | undefined, remember: boolean): void {
    remove(sessionStorage, `token.${profileId}`);
    remove(localStorage, `token.${profileId}`);
    if (!token) return;
    write(remember ? localStorage : sessionStorage, `token.${profileId}`, token);
  },
};
