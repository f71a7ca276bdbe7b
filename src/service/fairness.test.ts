/**
 * One token's runs must not hold the event loop: a schema GET from someone else is
 * answered while a big firehose run streams and while wait-mode firehose runs work.
 *
 * The service runs in a child process (`npm run service`), as users run it: a client in
 * the same process would share its event loop, and the client's own reading would make
 * the server yield through back-pressure, hiding a producer that never yields by itself.
 * The assertions are about order (the GET is answered before the run ends), not time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOKENS } from './test-http.ts';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
const SCHEMA_PATH = '/rest/api/index/custom-metadata/schema/sales';

let child: ChildProcess | undefined;
let base = '';

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', CLI, 'service', '--memory', '--port', '0', '--rate-limit', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child!.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /Reference service on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child!.once('exit', (code) => reject(new Error(`the service exited with ${code} before listening:\n${out}`)));
  });
  // The rest of stdout (demo tokens) must not fill the pipe.
  child.stdout!.resume();
});

afterAll(() => {
  child?.kill('SIGKILL');
});

function schemaGet(): Promise<Response> {
  return fetch(base + SCHEMA_PATH, { headers: { authorization: `Bearer ${TOKENS.sales}` } });
}

type Flavour = 'platform' | 'legacy';

function firehose(flavour: Flavour, count: number, stream: boolean, signal?: AbortSignal): Promise<Response> {
  const [path, body] =
    flavour === 'platform'
      ? ['/api/agents/firehose/runs', { input: { count }, stream }]
      : [`/rest/api/v1/agents/runs/${stream ? 'stream' : 'wait'}`, { agent_id: 'firehose', input: { count } }];
  return fetch(base + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
}

/** The firehose's answer text for `count` events: "token 1 token 2 … token N ". */
function firehoseTextLength(count: number): number {
  let length = 0;
  for (let n = 1; n <= count; n++) length += 'token '.length + String(n).length + 1;
  return length;
}

describe('a schema GET while one token runs the firehose', () => {
  test.each(['platform', 'legacy'] as const)('is answered while a 1,000,000-event %s stream is still streaming', async (flavour) => {
    const abort = new AbortController();
    const res = await firehose(flavour, 1_000_000, true, abort.signal);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const progress = { bytes: 0, ended: false };
    let first!: () => void;
    const firstChunk = new Promise<void>((r) => (first = r));
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        progress.bytes += value.byteLength;
        first();
      }
      progress.ended = true;
    })().catch(() => {
      // aborted below
    });
    await firstChunk;

    const get = await schemaGet();
    const seenWhenAnswered = { ...progress };
    expect(get.status).toBe(200);
    expect(await get.json()).toMatchObject({ metadataKeys: expect.any(Array) });
    abort.abort();
    await reading;
    // Streaming had begun and had not finished when the GET was answered.
    expect(seenWhenAnswered.bytes).toBeGreaterThan(0);
    expect(seenWhenAnswered.ended).toBe(false);
  });

  test('is answered while four wait-mode runs (two per family) are assembling their answers, which come out whole', async () => {
    const COUNT = 250_000;
    const answered: boolean[] = [false, false, false, false];
    const runs = answered.map((_, i) =>
      firehose(i % 2 ? 'legacy' : 'platform', COUNT, false).then(async (r) => {
        const body = (await r.json()) as { run: { status: string }; messages: { content: { text: string }[] }[] };
        answered[i] = true;
        return { status: r.status, body };
      }),
    );
    const allAnswered = Promise.all(runs);

    // The runs log shows a run the service started and has not ended: only a service that
    // yields mid-run can answer that while the run works.
    let sawRunWorking = false;
    let finished = false;
    void allAnswered.finally(() => (finished = true));
    while (!finished) {
      const log = (await (await fetch(`${base}/sandbox/runs`)).json()) as { runs: { agentId: string; mode: string; endedAt?: string }[] };
      if (log.runs.some((r) => r.agentId === 'firehose' && r.mode === 'wait' && r.endedAt === undefined)) {
        sawRunWorking = true;
        break;
      }
    }
    expect(sawRunWorking, 'no request was answered while a wait-mode run was working').toBe(true);

    const get = await schemaGet();
    const answeredBeforeGet = answered.filter(Boolean).length;
    expect(get.status).toBe(200);
    expect(answeredBeforeGet).toBeLessThan(answered.length);

    const results = await allAnswered;
    const expectedLength = firehoseTextLength(COUNT);
    for (const { status, body } of results) {
      expect(status).toBe(200);
      expect(body.run.status).toBe('success');
      expect(body.messages).toHaveLength(1);
      const text = body.messages[0]!.content[0]!.text;
      expect(text.length).toBe(expectedLength);
      expect(text.startsWith('token 1 token 2 ')).toBe(true);
      expect(text.endsWith(`token ${COUNT - 1} token ${COUNT} `)).toBe(true);
    }
  });
});
