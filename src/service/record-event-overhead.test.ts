/**
 * The recording's cap (RECORD_MAX_BODY_BYTES, 64 MB) bounds what an event stream's recording
 * holds in memory while the stream lasts, and writes. It counted each event's `data` only: an
 * event's name and id, and an event with no data at all, were kept uncounted, so an upstream
 * whose events carry long names (or that sends empty `data:` events without end) grew the
 * recording past any bound, and the console's server with it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { RECORD_MAX_BODY_BYTES, Recorder } from './recorder.ts';
import type { Recording } from './recording.ts';

const work = mkdtempSync(join(tmpdir(), 'record-overhead-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

test('events whose names are long (80 × 1 MB, empty data) are kept up to the cap, and the recording says truncated', async () => {
  const recorder = new Recorder(work);
  const req = { method: 'POST', headers: { 'content-type': 'application/json' } } as unknown as IncomingMessage;
  const exchange = recorder.begin(req, '/rest/api/v1/agents/runs/stream', 'http://upstream.example');
  exchange.responseHead(200, { 'content-type': 'text/event-stream' });
  const event = Buffer.from(`event: ${'e'.repeat(1024 * 1024)}\ndata:\n\n`);
  for (let i = 0; i < 80; i++) exchange.responseChunk(event);
  exchange.finish('complete');
  let files: string[] = [];
  for (const end = Date.now() + 30_000; Date.now() < end && !files.length; await new Promise((r) => setTimeout(r, 100))) {
    files = readdirSync(work).filter((f) => f.endsWith('.json') && !f.startsWith('.'));
  }
  const { response } = JSON.parse(readFileSync(join(work, files[0]!), 'utf8')) as Recording;
  const kept = (response.events ?? []).reduce((n, e) => n + e.data.length + (e.event?.length ?? 0) + (e.id?.length ?? 0), 0);
  expect({ truncated: response.truncated === true, keptWithinCap: kept <= RECORD_MAX_BODY_BYTES }).toEqual({ truncated: true, keptWithinCap: true });
}, 120_000);
