/**
 * Test-only helpers for durable runs: the client-model schemas (written from
 * @gleanwork/api-client 0.20.15, see src/contract/spec/client-models/README.md) and a small
 * HTTP client that polls a run the way the console does, with GET only.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Message } from '../../contract/agents.ts';
import type { DurableRun } from '../../contract/durable-runs.ts';
import { platformCancellationsPath, platformResponsesPath, platformRunPath, platformRunsPath } from '../../contract/run-paths.ts';
import type { Clock } from './clock.ts';

const SCHEMA_FILE = fileURLToPath(new URL('../../contract/spec/client-models/durable-runs.schema.json', import.meta.url));

export type ClientModel =
  | 'PlatformAgentRunResponse'
  | 'PlatformDurableAgentRun'
  | 'PlatformAgentRunToolApproval'
  | 'PlatformAgentRunCreateRequest'
  | 'PlatformAgentRunResponsesRequest'
  | 'PlatformAgentRunCancellationRequest'
  | 'PlatformProblemDetail';

let ajv: Ajv | undefined;
const compiled = new Map<ClientModel, ValidateFunction>();

/** Ajv's complaints about `value` as `model`, '' when it is valid. */
export function clientModelErrors(model: ClientModel, value: unknown): string {
  let validate = compiled.get(model);
  if (!validate) {
    if (!ajv) {
      ajv = new Ajv({ allErrors: true, strict: true });
      addFormats(ajv);
      ajv.addSchema(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object, 'durable');
    }
    validate = ajv.getSchema(`durable#/definitions/${model}`);
    if (!validate) throw new Error(`durable-runs.schema.json has no definitions.${model}`);
    compiled.set(model, validate);
  }
  return validate(value) ? '' : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
}

export interface Reply {
  status: number;
  contentType: string;
  json: unknown;
}

export const USER_HI: Message[] = [{ role: 'USER', content: [{ type: 'text', text: 'Hi there' }] }];

export function outputTexts(run: DurableRun): string[] {
  return (run.output?.messages ?? []).map((m) => m.content.map((b) => b.text).join(''));
}

/** The durable endpoints over real HTTP for one token. */
export function durableClient(baseUrl: () => string, token: string) {
  async function send(method: string, path: string, body?: unknown, as = token): Promise<Reply> {
    const headers: Record<string, string> = { authorization: `Bearer ${as}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(baseUrl() + path, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', json: text ? (JSON.parse(text) as unknown) : undefined };
  }
  const runOf = (r: Reply) => (r.json as { run: DurableRun }).run;
  const api = {
    send,
    create: (agentId: string, body: Record<string, unknown> = { messages: USER_HI }) =>
      send('POST', platformRunsPath(agentId), { execution_mode: 'DURABLE', ...body }),
    get: (agentId: string, runId: string, as?: string) => send('GET', platformRunPath(agentId, runId), undefined, as),
    cancel: (agentId: string, runId: string, as?: string) => send('POST', platformCancellationsPath(agentId), { run_id: runId }, as),
    respond: (agentId: string, runId: string, responses: unknown, as?: string) =>
      send('POST', platformResponsesPath(agentId), { run_id: runId, responses }, as),
    runOf,
    /** Starts a run and answers its id. */
    async start(agentId: string, body?: Record<string, unknown>): Promise<string> {
      const r = await api.create(agentId, body);
      if (r.status !== 201) throw new Error(`create ${agentId}: ${r.status} ${JSON.stringify(r.json)}`);
      return runOf(r).run_id;
    },
    /** Polls GET until `done` holds (or the time is up), as a console would. */
    async until(agentId: string, runId: string, done: (run: DurableRun) => boolean, timeoutMs = 8000): Promise<DurableRun> {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const r = await api.get(agentId, runId);
        if (r.status !== 200) throw new Error(`GET ${runId}: ${r.status} ${JSON.stringify(r.json)}`);
        const run = runOf(r);
        if (done(run)) return run;
        if (Date.now() > end) throw new Error(`Run ${runId} did not get there in ${timeoutMs} ms; last: ${JSON.stringify(run)}`);
        await new Promise((res) => setTimeout(res, 50));
      }
    },
    state: (agentId: string, runId: string, state: string, timeoutMs?: number) => api.until(agentId, runId, (r) => r.state === state, timeoutMs),
  };
  return api;
}

export const sleepMs = (ms: number) => new Promise<void>((res) => setTimeout(res, ms));

/**
 * A clock that moves only when the test says so. `advance` fires the timers that fall due
 * in time order, letting the service's workers settle after each (a run's steps at one
 * instant all happen before the next timer), so a run's whole life is deterministic.
 */
export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: { due: number; seq: number; fn: () => void; live: boolean }[] = [];

  constructor(start: number) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number) {
    const timer = { due: this.t + Math.max(0, ms), seq: this.seq++, fn, live: true };
    this.timers.push(timer);
    return { cancel: () => void (timer.live = false) };
  }

  /** Moves time on by `ms`, firing what falls due on the way; `settle` runs after each timer. */
  async advance(ms: number, settle: () => Promise<void>): Promise<void> {
    const target = this.t + ms;
    for (;;) {
      this.timers = this.timers.filter((x) => x.live);
      let next: (typeof this.timers)[number] | undefined;
      for (const x of this.timers) if (x.due <= target && (!next || x.due < next.due || (x.due === next.due && x.seq < next.seq))) next = x;
      if (!next) break;
      next.live = false;
      this.t = Math.max(this.t, next.due);
      next.fn();
      await settle();
    }
    this.t = target;
  }
}
