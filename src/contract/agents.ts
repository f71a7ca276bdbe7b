/** Wire types of the Agents APIs (docs/api.md, both agent APIs). */

import type { ActionSummary } from './tool-servers.ts';

export type MessageRole = 'USER' | 'GLEAN_AI';

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface Message {
  role: MessageRole;
  content: TextBlock[];
}

export interface AgentCapabilities {
  'ap.io.messages'?: boolean;
  'ap.io.streaming'?: boolean;
  [other: string]: unknown;
}

export interface Agent {
  agent_id: string;
  name: string;
  description?: string;
  capabilities: AgentCapabilities;
}

/** A JSON Schema object, as agents publish their input and output. */
export type JsonSchema = Record<string, unknown>;

export interface AgentSchemas {
  agent_id: string;
  name?: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
  /** Only when asked for with `include_tools=true` (platform API). */
  tools?: ActionSummary[];
}

export interface AgentRunCreate {
  agent_id: string;
  input?: Record<string, unknown>;
  messages?: Message[];
  metadata?: Record<string, unknown>;
}

export interface PlatformRunRequest {
  input?: Record<string, unknown>;
  messages?: Message[];
  metadata?: Record<string, unknown>;
  stream?: boolean;
}

export type RunStatus = 'success' | 'error';

export interface RunWaitResponse {
  run: AgentRunCreate & { status: RunStatus };
  messages: Message[];
  request_id?: string;
}

export interface AuthenticationSuggestion {
  toolName?: string;
  serverId: string;
  [other: string]: unknown;
}

/** The legacy family's 422 body. */
export interface UnauthorizedAgentToolsError {
  message: string;
  authenticationSuggestions: AuthenticationSuggestion[];
}

/** Legacy run endpoints' deprecation (docs/api.md, client API). */
export const LEGACY_RUNS_DEPRECATED_AT = new Date('2026-08-25T00:00:00Z');
export const LEGACY_RUNS_SUNSET_AT = new Date('2027-04-15T00:00:00Z');


/**
 * Concatenates the text blocks of the answer's messages, in order. An instance may answer
 * anything: a message or block of another shape adds nothing, it does not throw.
 */
export function transcriptOf(messages: readonly Message[] | unknown): string {
  let out = '';
  if (!Array.isArray(messages)) return out;
  for (const m of messages as Partial<Message>[]) {
    if (!Array.isArray(m?.content)) continue;
    for (const block of m.content) if (block?.type === 'text' && typeof block.text === 'string') out += block.text;
  }
  return out;
}
