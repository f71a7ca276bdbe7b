/**
 * What a suite run loads once and every case shares (the spec lens, each agent's schemas, what
 * is left to keep), and what a case's request needs of it: a row's cells typed by the agent's
 * input schema.
 */

import type { AgentSchemas, JsonSchema } from '../../contract/agents';
import { fetchAgentSchemas } from '../../lib/agents/agent-schemas';
import type { Connection } from '../../lib/connection';
import type { Pacer } from '../pacing';
import type { Flavour, RunRequest } from '../run-request';
import type { LensChecker } from './assertions';
import { SuiteKeep } from './case-limits';
import { hasTextCells } from './row-input';
import { caseRequest, type RunOverrides, type SuiteItem } from './suite';

/** What a suite run loads once and every case shares: the spec lens, each agent's schemas, what is left to keep. */
export class SharedLoads {
  private lens?: Promise<LensChecker | undefined>;
  private readonly schemas = new Map<string, Promise<{ schemas: AgentSchemas } | { error: string }>>();
  readonly keep = new SuiteKeep();

  constructor(private readonly env: { connection: Pick<Connection, 'baseUrl' | 'token' | 'problem'>; loadLens?: () => Promise<LensChecker>; pacer?: Pacer; signal?: AbortSignal }) {}

  loadLens(): Promise<LensChecker | undefined> {
    this.lens ??= (this.env.loadLens?.() ?? Promise.resolve(undefined)).catch(() => undefined);
    return this.lens;
  }

  private agentSchemas(flavour: Flavour, agentId: string): Promise<{ schemas: AgentSchemas } | { error: string }> {
    const key = `${flavour} ${agentId}`;
    let p = this.schemas.get(key);
    if (!p) {
      // Read once for the whole suite, so paced as its runs are: a 429 or 503 is waited out, not kept as the answer.
      const read = () => fetchAgentSchemas(this.env.connection, flavour, agentId);
      p = (this.env.pacer ? this.env.pacer.send(read, { temporary: true, network: true, ...(this.env.signal && { signal: this.env.signal }) }) : read()).then(
        (schemas) => ({ schemas }),
        (err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }),
      );
      this.schemas.set(key, p);
    }
    return p;
  }

  async outputSchema(flavour: Flavour, agentId: string): Promise<{ schema: JsonSchema } | { error: string }> {
    const s = await this.agentSchemas(flavour, agentId);
    if ('error' in s) return s;
    return typeof s.schemas?.output_schema === 'object' && s.schemas.output_schema !== null ? { schema: s.schemas.output_schema } : { error: 'the agent publishes no output_schema' };
  }

  /** The agent's input schema, which types a row's cells. */
  async inputSchema(flavour: Flavour, agentId: string): Promise<{ schema: JsonSchema } | { error: string }> {
    const s = await this.agentSchemas(flavour, agentId);
    if ('error' in s) return s;
    return typeof s.schemas?.input_schema === 'object' && s.schemas.input_schema !== null ? { schema: s.schemas.input_schema } : { error: 'the agent publishes no input_schema' };
  }
}

/**
 * The request of an item: a row's CSV cells typed by the agent's input schema (read once per
 * agent and API), or, when it cannot be read, like the saved values, which the result says.
 */
export async function itemRequest(item: SuiteItem, overrides: RunOverrides | undefined, shared: SharedLoads, notes: string[]): Promise<RunRequest> {
  const plain = caseRequest(item.case, item.row, overrides);
  if (item.case.input === undefined || !hasTextCells(item.row)) return plain;
  const schema = await shared.inputSchema(plain.flavour, plain.agentId);
  if ('schema' in schema) return caseRequest(item.case, item.row, overrides, schema.schema);
  notes.push(`The agent’s input schema could not be read (${schema.error}): the row’s cells were typed like the saved input’s values, and a cell of a field saved empty was sent as text.`);
  return plain;
}
