import type { Message } from '../../contract/agents';
import { legacyRunPath, platformRunsPath } from '../../contract/run-paths';
import type { Flavour } from './run-session';

export type Mode = 'stream' | 'wait';

export interface RunRequest {
  flavour: Flavour;
  mode: Mode;
  path: string;
  body: Record<string, unknown>;
}

/** The run's path and exact body on either API; the two differ only where the APIs do. */
export function runRequest(
  flavour: Flavour,
  mode: Mode,
  agentId: string,
  parts: { input?: Record<string, unknown>; messages?: Message[] },
): RunRequest {
  const content = {
    ...(parts.input !== undefined && { input: parts.input }),
    ...(parts.messages !== undefined && { messages: parts.messages }),
  };
  if (flavour === 'legacy') {
    return { flavour, mode, path: legacyRunPath(mode), body: { agent_id: agentId, ...content } };
  }
  return { flavour, mode, path: platformRunsPath(agentId), body: { ...content, stream: mode === 'stream' } };
}

/** The same run on the other API, for "switch to the replacement" and the side-by-side view. */
export function counterpart(req: RunRequest, agentId: string): RunRequest {
  const { agent_id: _a, stream: _s, ...content } = req.body;
  return runRequest(req.flavour === 'legacy' ? 'platform' : 'legacy', req.mode, agentId, content as { input?: Record<string, unknown>; messages?: Message[] });
}

export interface Deprecation {
  deprecatedAt: Date;
  sunsetAt: Date;
  successor?: string;
  /** True when the dates came from the answer's headers, not the published defaults. */
  fromHeaders: boolean;
}

/** Reads RFC 9745 `Deprecation: @epoch`, RFC 8594 `Sunset` and the successor `Link`, else the published dates. */
export function deprecationOf(headers: [string, string][] | undefined, defaults: { deprecatedAt: Date; sunsetAt: Date }): Deprecation {
  const get = (n: string) => headers?.find(([k]) => k.toLowerCase() === n)?.[1];
  const dep = get('deprecation');
  const sunset = get('sunset');
  const link = get('link');
  const epoch = dep && /^@(\d+)$/.exec(dep.trim());
  const deprecatedAt = epoch ? new Date(Number(epoch[1]) * 1000) : defaults.deprecatedAt;
  const sunsetAt = sunset && !Number.isNaN(Date.parse(sunset)) ? new Date(sunset) : defaults.sunsetAt;
  const successor = link ? /<([^>]+)>\s*;\s*rel="?successor-version"?/i.exec(link)?.[1] : undefined;
  return { deprecatedAt, sunsetAt, successor, fromHeaders: Boolean(epoch || sunset) };
}
