/**
 * The active connection as the rest of the console sees it. The connection feature
 * provides it; other features pass it to lib/api-client and lib/sse without reading the
 * token themselves, and key their caches by `fingerprint`, never by the token.
 */

import { createContext, useContext } from 'react';

export type ConnectionMode = 'same-origin' | 'proxy' | 'direct';

export interface Connection {
  /** '' is this console's own origin (the bundled reference service); `/upstream/<host>` the console's proxy. */
  baseUrl: string;
  token?: string;
  /** Why no request can be sent yet (an instance URL still missing); nothing is sent then. */
  problem?: string;
}

export type GroupOutcome = 'ok' | 'refused';

export interface ActiveConnection extends Connection {
  profileId: string;
  profileLabel: string;
  mode: ConnectionMode;
  /** Where the mode points: the instance URL (direct), the upstream origin (proxy), '' for this origin. */
  target: string;
  /** What the user says the token's scopes are; empty when not stated. */
  scopes: string[];
  /** A hash of the token for cache keys; 'none' without a token. */
  fingerprint: string;
  /** Shown instead of the base URL: the instance's own origin behind a proxy. */
  displayBaseUrl: string;
  /** Groups that answered, or were refused, with this profile. */
  outcomes: Record<string, GroupOutcome>;
  recordOutcome(group: string, outcome: GroupOutcome): void;
  /** Screen-share mode: every token on screen is masked. */
  screenShare: boolean;
}

export const ConnectionContext = createContext<ActiveConnection | null>(null);

export function useConnection(): ActiveConnection {
  const value = useContext(ConnectionContext);
  if (!value) throw new Error('useConnection must be used inside the connection provider.');
  return value;
}

/** Every profile by name, and the connection each would give (its own token): "Run on both" sends to two. */
export interface Connections {
  profiles: readonly { id: string; label: string }[];
  connectionOf(profileId: string): ActiveConnection | undefined;
}

export const ConnectionsContext = createContext<Connections | null>(null);

export function useConnections(): Connections {
  const value = useContext(ConnectionsContext);
  if (!value) throw new Error('useConnections must be used inside the connection provider.');
  return value;
}

/** What identifies a connection's answers: its mode, its target and its token's fingerprint. */
export type ConnectionIdentity = Pick<ActiveConnection, 'mode' | 'target' | 'fingerprint'>;

/**
 * The prefix of every query key: two connections share cached answers only when they reach
 * the same place with the same token. (The base URL alone is not enough: the bundled service
 * and a profile with no target yet both have base URL ''.)
 */
export function connectionKey(c: ConnectionIdentity): readonly ['connection', ConnectionMode, string, string] {
  return ['connection', c.mode, c.target, c.fingerprint] as const;
}

/**
 * A 64-bit non-reversible fingerprint (two FNV-1a variants), synchronous so cache keys are
 * ready on the first render. It separates caches; it is not a security boundary.
 */
export function fingerprintOf(token: string | undefined): string {
  if (!token) return 'none';
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ token.length;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
    h2 ^= h2 >>> 13;
  }
  return `fp_${h1.toString(16).padStart(8, '0')}${h2.toString(16).padStart(8, '0')}`;
}

/** A token whose string is public (a reference service's demo token), by the name it is known under. */
export interface KnownToken {
  token: string;
  label: string;
}

/**
 * A token as it may appear on screen: its first characters only, or nothing in screen-share
 * mode. A public demo token (one of `known`) also says which one it is: they all begin alike,
 * and their label is public. Any other token never shows more than its first characters.
 */
export function maskToken(token: string | undefined, screenShare: boolean, known: readonly KnownToken[] = []): string {
  if (!token) return '(none)';
  if (screenShare) return '••••••••';
  const masked = `${token.slice(0, Math.min(6, Math.floor(token.length / 3)))}…••••`;
  const demo = known.find((k) => k.token === token);
  return demo ? `${masked} (${demo.label})` : masked;
}
