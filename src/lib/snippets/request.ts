/**
 * The requests the console can send, described once for every code generator (curl, fetch,
 * the official TypeScript client): the same description always yields the same method, URL
 * and body in each language.
 */
import type { CustomProperty, MetadataSchema } from '../../contract/metadata';
import { platformRunPath } from '../../contract/run-paths';
import { SSE_CONTENT_TYPE } from '../../contract/sse';

export type RunFlavour = 'legacy' | 'platform';
export type RunMode = 'stream' | 'wait' | 'durable';

export type ApiCall =
  | { op: 'getSchema'; group: string }
  | { op: 'putSchema'; group: string; schema: MetadataSchema }
  | { op: 'deleteSchema'; group: string }
  | { op: 'putValues'; group: string; docId: string; values: CustomProperty[] }
  | { op: 'deleteValues'; group: string; docId: string }
  /** An agent run as the console sends it: `path` and `body` already written for the flavour and mode. */
  | { op: 'run'; agentId: string; flavour: RunFlavour; mode: RunMode; path: string; body: Record<string, unknown> };

export interface SnippetOptions {
  /** Where the API lives, absolute, without a trailing slash (e.g. https://acme-be.glean.com). */
  serverUrl: string;
  token?: string;
  /** When false (the default) the token is a placeholder: $TOKEN in a shell, process.env.GLEAN_TOKEN in code. */
  includeToken: boolean;
}

export type Language = 'curl' | 'javascript' | 'typescript';
export const LANGUAGES: { id: Language; label: string }[] = [
  { id: 'curl', label: 'curl' },
  { id: 'javascript', label: 'JavaScript' },
  { id: 'typescript', label: 'TypeScript' },
];

export interface HttpShape {
  method: 'GET' | 'PUT' | 'DELETE' | 'POST';
  path: string;
  body?: unknown;
  /** The answer is an event stream. */
  stream: boolean;
  /** A durable run: created, then followed with GET until it settles. */
  durable: boolean;
  headers: Record<string, string>;
}

const enc = encodeURIComponent;
const schemaPath = (group: string) => `/rest/api/index/custom-metadata/schema/${enc(group)}`;
const valuesPath = (docId: string, group: string) => `/rest/api/index/document/${enc(docId)}/custom-metadata/${enc(group)}`;

/** The HTTP request behind a call; what curl and fetch send verbatim. */
export function httpShape(call: ApiCall): HttpShape {
  const plain = { stream: false, durable: false, headers: {} };
  switch (call.op) {
    case 'getSchema':
      return { ...plain, method: 'GET', path: schemaPath(call.group) };
    case 'putSchema':
      return { ...plain, method: 'PUT', path: schemaPath(call.group), body: call.schema };
    case 'deleteSchema':
      return { ...plain, method: 'DELETE', path: schemaPath(call.group) };
    case 'putValues':
      return { ...plain, method: 'PUT', path: valuesPath(call.docId, call.group), body: { customMetadata: call.values } };
    case 'deleteValues':
      return { ...plain, method: 'DELETE', path: valuesPath(call.docId, call.group) };
    case 'run': {
      const stream = call.mode === 'stream';
      return {
        method: 'POST',
        path: call.path,
        body: call.body,
        stream,
        durable: call.mode === 'durable' && call.flavour === 'platform',
        headers: stream ? { Accept: SSE_CONTENT_TYPE } : {},
      };
    }
  }
}

/** Where a durable run is followed: this prefix, then its run_id percent-encoded. */
export function durableRunPathPrefix(agentId: string): string {
  const marker = 'RUNID';
  return platformRunPath(agentId, marker).slice(0, -marker.length);
}

/** Stands for the token on screen when "Include token" is ticked: the real one goes only to the clipboard. */
export const MASKED_TOKEN = '••••••••';
/** A shell variable, so the redacted command still runs once TOKEN is set. */
export const SHELL_TOKEN = '$TOKEN';
export const ENV_TOKEN = 'process.env.GLEAN_TOKEN';
