/**
 * Test support for component and hook tests, which run in Chromium against the reference
 * service the browser test project serves on the page's own origin (vitest.config.ts).
 * Only tests import this.
 */

/** Public demo tokens of the reference service (README, "Sandbox tokens"). */
export const DEMO = {
  global: 'sandbox-global-3f9c2a7d41e8b605',
  agents: 'sandbox-agents-1d6f3b9e0a7c2548',
} as const;

/** A fresh browser profile: nothing remembered, this token on the bundled service. */
export function freshBrowser(token: string, profiles?: unknown): void {
  localStorage.clear();
  sessionStorage.clear();
  if (profiles) localStorage.setItem('mac.profiles', JSON.stringify(profiles));
  sessionStorage.setItem('mac.token.reference', JSON.stringify(token));
}

export interface ServiceRun {
  agentId: string;
  endedAt?: string;
}

/** The runs the reference service has seen (its sandbox log), oldest first. */
export async function serviceRuns(): Promise<ServiceRun[]> {
  const res = await fetch('/sandbox/runs');
  return ((await res.json()) as { runs: ServiceRun[] }).runs;
}

/** More demo tokens, for tests that need two tokens at once. */
export const DEMO_EVERYTHING = 'sandbox-everything-7e2a5c8d1b4f9063';

export interface ServicePost {
  path: string;
  status: number;
  /** The body's messages as they arrived. */
  messages?: unknown;
}

/** Every run POST the reference service received (durable ones included), oldest first. */
export async function servicePosts(): Promise<ServicePost[]> {
  const res = await fetch('/sandbox/runs');
  return ((await res.json()) as { posts: ServicePost[] }).posts;
}

/** The bundled service's profile as the run store is given it: same origin, this token, this fingerprint. */
export function referenceConnection(token: string, fingerprint: string) {
  return { baseUrl: '', token, problem: undefined, profileId: 'reference', profileLabel: 'Reference service', mode: 'same-origin' as const, target: '', fingerprint };
}

/** A token of its own for one test (`agents.run`): the service counts durable runs per token, so one test's runs never fill another's. */
export async function mintAgentsToken(): Promise<string> {
  const res = await fetch('/sandbox/tokens', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ scopes: ['agents.run'], label: 'test' }) });
  if (!res.ok) throw new Error(`minting a test token: ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}
