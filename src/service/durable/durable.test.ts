/**
 * Durable runs over real HTTP (docs/api.md, durable runs): creation, background execution, approvals,
 * cancellation, ownership, expiry and restarts, with the bundled scripted agents.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { DurableRun } from '../../contract/durable-runs.ts';
import { createService } from '../app.ts';
import { listen } from '../node.ts';
import { listeningService, TOKENS } from '../test-http.ts';
import { DurableRunStore } from './store.ts';
import { clientModelErrors, durableClient, outputTexts, sleepMs, USER_HI, type Reply } from './test-support.ts';

const server = listeningService();
const api = durableClient(() => server.url, TOKENS.agents);

function expectRun(r: Reply, status = 200): DurableRun {
  expect({ status: r.status, body: r.json }).toMatchObject({ status });
  expect(r.contentType).toMatch(/^application\/json/);
  expect(clientModelErrors('PlatformAgentRunResponse', r.json)).toBe('');
  return api.runOf(r);
}

function expectProblem(r: Reply, status: number, code: string, reason?: string): { detail: string; errors?: { pointer: string }[] } {
  expect({ status: r.status, body: r.json }).toMatchObject({ status, body: { status, code } });
  expect(r.contentType).toBe('application/problem+json');
  expect(clientModelErrors('PlatformProblemDetail', r.json)).toBe('');
  if (reason) expect((r.json as { reason: string }).reason).toBe(reason);
  return r.json as { detail: string; errors?: { pointer: string }[] };
}

describe('creating a durable run', { timeout: 60_000 }, () => {
  test('answers 201 at once with a QUEUED run and its deadline; the run then goes on by itself', async () => {
    const before = Date.now();
    const r = await api.create('echo-assistant');
    const run = expectRun(r, 201);
    expect(run).toMatchObject({ agent_id: 'echo-assistant', state: 'QUEUED', pending_interactions: [] });
    expect(run.run_id).toMatch(/^run_/);
    expect((r.json as { request_id: string }).request_id).toMatch(/^req_/);
    // 30 minutes from acceptance, by default.
    expect(Date.parse(run.expires_at!) - Date.parse(run.created_at)).toBe(30 * 60_000);
    expect(Date.parse(run.created_at)).toBeGreaterThanOrEqual(before - 5);

    const done = await api.state('echo-assistant', run.run_id, 'SUCCEEDED');
    // A request-bound script's fragments grow one message.
    expect(outputTexts(done)).toEqual(['You asked: "Hi there". This is the reference service\'s echo assistant, answering one word per event.']);
    expect(done.expires_at).toBeUndefined();
    expect(done.created_at).toBe(run.created_at);
    expect(Date.parse(done.updated_at)).toBeGreaterThan(Date.parse(run.updated_at));
  });

  test('validates the input against the agent\'s schema and keeps every other refusal', async () => {
    const missing = expectProblem(await api.create('hr-policy-form', { input: { topic: 'leave', region: 'emea' } }), 400, 'missing_required_field');
    expect(missing.errors!.map((e) => e.pointer)).toEqual(expect.arrayContaining(['/input/audience', '/input/tone']));
    expectProblem(await api.create('echo-assistant', { messages: USER_HI, stream: true }), 400, 'invalid_request');
    const session = expectProblem(await api.create('echo-assistant', { messages: USER_HI, metadata: { chat_session_id: 'abc' } }), 400, 'invalid_request');
    expect(session.errors!.map((e) => e.pointer)).toEqual(['/metadata/chat_session_id']);
    expectProblem(await api.create('echo-assistant', { messages: USER_HI, execution_mode: 'LATER' }), 400, 'invalid_parameter');
    expectProblem(await api.create('no-such-agent'), 404, 'resource_not_found');
    expectProblem(await api.create('calendar-helper'), 422, 'tools_unauthorized');
    expectProblem(await api.send('POST', '/api/agents/echo-assistant/runs', { execution_mode: 'DURABLE', messages: USER_HI }, TOKENS.hr), 403, 'insufficient_permissions');
  });

  test('stream false with DURABLE is accepted; REQUEST_BOUND still waits or streams', async () => {
    expectRun(await api.create('echo-assistant', { messages: USER_HI, stream: false }), 201);
    const wait = await api.send('POST', '/api/agents/echo-assistant/runs', { messages: USER_HI, execution_mode: 'REQUEST_BOUND' });
    expect(wait.status).toBe(200);
    expect((wait.json as { run: { status: string } }).run.status).toBe('success');
    const res = await fetch(`${server.url}/api/agents/echo-assistant/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: USER_HI, stream: true, execution_mode: 'REQUEST_BOUND' }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await res.text()).toContain('event: message');
  });

  test('every durable POST is counted once in the sandbox run log, refused ones included', async () => {
    const before = ((await (await fetch(`${server.url}/sandbox/runs`)).json()) as { posts: unknown[] }).posts.length;
    await api.create('long-runner');
    await api.create('echo-assistant', { messages: USER_HI, stream: true });
    const { posts } = (await (await fetch(`${server.url}/sandbox/runs`)).json()) as { posts: { path: string; status: number }[] };
    expect(posts.slice(before).map((p) => [p.path, p.status])).toEqual([
      ['/api/agents/long-runner/runs', 201],
      ['/api/agents/echo-assistant/runs', 400],
    ]);
  });
});

describe('reading a run', { timeout: 60_000 }, () => {
  test('another token\'s run, another agent\'s run and an unknown run all answer 404', async () => {
    const id = await api.start('long-runner');
    expectRun(await api.get('long-runner', id));
    expectProblem(await api.get('long-runner', id, TOKENS.everything), 404, 'resource_not_found');
    expectProblem(await api.get('echo-assistant', id), 404, 'resource_not_found');
    expectProblem(await api.get('no-such-agent', id), 404, 'resource_not_found');
    expectProblem(await api.get('long-runner', 'run_000000000000000000000000'), 404, 'resource_not_found');
    expectProblem(await api.cancel('long-runner', id, TOKENS.everything), 404, 'resource_not_found');
    expectProblem(await api.cancel('echo-assistant', id), 404, 'resource_not_found');
    expectProblem(await api.respond('long-runner', id, [{ interaction_id: 'int_x', decision: 'APPROVE' }], TOKENS.everything), 404, 'resource_not_found');
    expectProblem(await api.respond('firehose', id, [{ interaction_id: 'int_x', decision: 'APPROVE' }]), 404, 'resource_not_found');
    expectProblem(await api.send('GET', `/api/agents/long-runner/runs/${id}`, undefined, TOKENS.hr), 403, 'insufficient_permissions');
    const anonymous = await fetch(`${server.url}/api/agents/long-runner/runs/${id}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toBe('application/problem+json');
    await api.cancel('long-runner', id);
  });

  test('output accumulates while the run goes on, and updated_at follows it', async () => {
    const id = await api.start('long-runner');
    const first = await api.until('long-runner', id, (r) => outputTexts(r).length >= 2);
    const later = await api.until('long-runner', id, (r) => outputTexts(r).length >= 3);
    expect(outputTexts(later).slice(0, 2)).toEqual(outputTexts(first).slice(0, 2));
    expect(outputTexts(later)).toEqual(['Started a long job of 60 steps.', 'Step 1 of 60 done.', 'Step 2 of 60 done.']);
    expect(Date.parse(later.updated_at)).toBeGreaterThan(Date.parse(first.updated_at));
    expect(later.state).toBe('RUNNING');
    await api.cancel('long-runner', id);
  });

  test('a failing run ends FAILED with error { code, message } and the output it had', async () => {
    const id = await api.start('failing-job');
    const run = await api.state('failing-job', id, 'FAILED');
    expect(run.error).toEqual({ code: 'tool_execution_failed', message: 'The export tool failed: the destination bucket refused the upload (quota exceeded).' });
    expect(outputTexts(run)).toEqual(['Starting the export of 1,200 rows.', 'Exported 800 rows.']);
    expect(run.expires_at).toBeUndefined();
    // A request-bound agent's failure, run durably.
    const flaky = await api.state('flaky-reporter', await api.start('flaky-reporter'), 'FAILED');
    expect(flaky.error).toEqual({ code: 'spend_limit_exceeded', message: "You've reached the monthly limit set by your admin." });
  });
});

describe('tool approvals', { timeout: 60_000 }, () => {
  test('a single approval: APPROVE resumes the same run, which submits and succeeds', async () => {
    const id = await api.start('expense-filer');
    const paused = await api.state('expense-filer', id, 'REQUIRES_INPUT');
    expect(paused.expires_at).toBeUndefined();
    expect(paused.pending_interactions).toHaveLength(1);
    const [approval] = paused.pending_interactions;
    expect(approval).toMatchObject({
      type: 'TOOL_APPROVAL',
      tool_id: 'finance.submit_expense_report',
      display_name: 'Submit expense report',
      description: expect.stringContaining('finance system'),
      arguments: { report_id: 'EXP-1042', amount: 412.6, currency: 'EUR' },
    });
    expect(Date.parse(approval!.expires_at!) - Date.parse(paused.updated_at)).toBe(24 * 3_600_000);

    const resumed = expectRun(await api.respond('expense-filer', id, [{ interaction_id: approval!.interaction_id, decision: 'APPROVE' }]));
    expect(resumed).toMatchObject({ run_id: id, state: 'RUNNING', pending_interactions: [] });
    expect(Date.parse(resumed.expires_at!)).toBeGreaterThan(Date.now() + 29 * 60_000);
    const done = await api.state('expense-filer', id, 'SUCCEEDED');
    expect(outputTexts(done).slice(2)).toEqual([
      'Approved: submitting EXP-1042 to the finance system.',
      'The finance system accepted EXP-1042 (confirmation FIN-88213); your manager has been notified.',
      'Done.',
    ]);
  });

  test('REJECT finishes differently, without the tool', async () => {
    const id = await api.start('expense-filer');
    const [approval] = (await api.state('expense-filer', id, 'REQUIRES_INPUT')).pending_interactions;
    expectRun(await api.respond('expense-filer', id, [{ interaction_id: approval!.interaction_id, decision: 'REJECT' }]));
    const done = await api.state('expense-filer', id, 'SUCCEEDED');
    expect(outputTexts(done).slice(2)).toEqual([
      'Rejected: EXP-1042 was not submitted. The draft is kept; nothing was sent to the finance system.',
      'Done.',
    ]);
  });

  test('two approvals in one batch: incomplete, duplicate and unknown decisions are 409; the whole batch resumes once', async () => {
    const id = await api.start('trip-planner');
    const paused = await api.state('trip-planner', id, 'REQUIRES_INPUT');
    const [flight, hotel] = paused.pending_interactions;
    expect([flight!.display_name, hotel!.display_name]).toEqual(['Book flight', 'Book hotel']);
    expect(flight!.expires_at).toBeDefined();
    expect(hotel!.expires_at).toBeUndefined();
    expect(hotel!.tool_id).toBeUndefined();
    const f = flight!.interaction_id;
    const h = hotel!.interaction_id;

    expectProblem(await api.respond('trip-planner', id, [{ interaction_id: f, decision: 'APPROVE' }]), 409, 'conflict', 'incomplete_decisions');
    expectProblem(
      await api.respond('trip-planner', id, [{ interaction_id: f, decision: 'APPROVE' }, { interaction_id: f, decision: 'APPROVE' }]),
      409, 'conflict', 'duplicate_interaction',
    );
    expectProblem(
      await api.respond('trip-planner', id, [{ interaction_id: f, decision: 'APPROVE' }, { interaction_id: h, decision: 'APPROVE' }, { interaction_id: 'int_other', decision: 'REJECT' }]),
      409, 'conflict', 'not_pending',
    );
    // None of the refusals resumed anything.
    expect(expectRun(await api.get('trip-planner', id)).state).toBe('REQUIRES_INPUT');

    const batch = [{ interaction_id: f, decision: 'APPROVE' }, { interaction_id: h, decision: 'REJECT' }];
    expect(expectRun(await api.respond('trip-planner', id, batch)).state).toBe('RUNNING');
    // The same batch again (a retry) answers the snapshot and does not resume twice.
    const again = expectRun(await api.respond('trip-planner', id, [...batch].reverse()));
    expect(again.run_id).toBe(id);
    expectProblem(
      await api.respond('trip-planner', id, [{ interaction_id: f, decision: 'REJECT' }, { interaction_id: h, decision: 'REJECT' }]),
      409, 'conflict', 'conflicting_decision',
    );
    expectProblem(await api.respond('trip-planner', id, [{ interaction_id: f, decision: 'APPROVE' }]), 409, 'conflict', 'stale_decision');

    const done = await api.state('trip-planner', id, 'SUCCEEDED');
    expect(outputTexts(done)).toEqual([
      'Found a flight and a hotel for Berlin, 14 to 16 October.',
      'Booking both needs your approval.',
      'Flight LH 2033 booked (record locator QX7P2M).',
      'Hotel not reserved, as you asked.',
      'Trip plan finished.',
    ]);
    expectRun(await api.respond('trip-planner', id, batch));
  });

  test('decisions for a run that is not paused are 409, malformed bodies 400', async () => {
    const id = await api.start('long-runner');
    await api.state('long-runner', id, 'RUNNING');
    expectProblem(await api.respond('long-runner', id, [{ interaction_id: 'int_x', decision: 'APPROVE' }]), 409, 'conflict', 'not_pending');
    const bad: [unknown, string][] = [
      [{ run_id: id, responses: [] }, '/responses'],
      [{ run_id: id, responses: 'APPROVE' }, '/responses'],
      [{ run_id: id, responses: [{ interaction_id: 'int_x', decision: 'MAYBE' }] }, '/responses/0/decision'],
      [{ run_id: id, responses: [{ interaction_id: '', decision: 'APPROVE' }] }, '/responses/0/interaction_id'],
      [{ run_id: id, responses: [{ interaction_id: 'int_x', decision: 'APPROVE', note: 'hi' }] }, '/responses/0/note'],
      [{ run_id: id, responses: ['APPROVE'] }, '/responses/0'],
      [{ responses: [{ interaction_id: 'int_x', decision: 'APPROVE' }] }, '/run_id'],
      [{ run_id: 7, responses: [{ interaction_id: 'int_x', decision: 'APPROVE' }] }, '/run_id'],
      [{ run_id: id, responses: [], extra: true }, '/extra'],
    ];
    for (const [body, pointer] of bad) {
      const p = expectProblem(await api.send('POST', '/api/agents/long-runner/responses', body), 400, (body as { run_id?: unknown }).run_id === undefined ? 'missing_required_field' : 'invalid_request');
      expect(p.errors?.map((e) => e.pointer), JSON.stringify(body)).toContain(pointer);
    }
    expectProblem(await api.send('POST', '/api/agents/long-runner/responses', '{"run_id": '), 400, 'invalid_request');
    expectProblem(await api.send('POST', '/api/agents/long-runner/cancellations', ['run_id']), 400, 'invalid_request');
    expectProblem(await api.send('POST', '/api/agents/long-runner/cancellations', {}), 400, 'missing_required_field');
    const notJson = await fetch(`${server.url}/api/agents/long-runner/cancellations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'text/plain' },
      body: 'run_id',
    });
    expect(notJson.status).toBe(400);
    expect(notJson.headers.get('content-type')).toBe('application/problem+json');
    await api.cancel('long-runner', id);
  });
});

describe('cancellation', { timeout: 60_000 }, () => {
  test('a running run goes CANCELLING, then CANCELLED; repeats answer the snapshot; its output stops', async () => {
    const id = await api.start('long-runner');
    await api.until('long-runner', id, (r) => outputTexts(r).length >= 2);
    const cancelling = expectRun(await api.cancel('long-runner', id));
    expect(cancelling.state).toBe('CANCELLING');
    expect(expectRun(await api.cancel('long-runner', id)).state).toBe('CANCELLING');
    const cancelled = await api.state('long-runner', id, 'CANCELLED');
    expect(cancelled.expires_at).toBeUndefined();
    await sleepMs(1200);
    const after = expectRun(await api.get('long-runner', id));
    expect(outputTexts(after)).toEqual(outputTexts(cancelled));
    expect(expectRun(await api.cancel('long-runner', id))).toEqual(after);
  });

  test('every transition is stored in SQLite with its time, in order', async () => {
    const id = await api.start('long-runner');
    await api.state('long-runner', id, 'RUNNING');
    await api.cancel('long-runner', id);
    await api.state('long-runner', id, 'CANCELLED');
    const transitions = new DurableRunStore(server.service.store.database).transitions(id);
    expect(transitions.map((t) => t.state)).toEqual(['QUEUED', 'RUNNING', 'CANCELLING', 'CANCELLED']);
    const times = transitions.map((t) => Date.parse(t.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // Cooperative cancellation: the clean-up second between asking and being cancelled.
    expect(times[3]! - times[2]!).toBeGreaterThanOrEqual(1000);
  });

  test('a paused run is CANCELLED at once; its pending decisions are then stale', async () => {
    const id = await api.start('expense-filer');
    const [approval] = (await api.state('expense-filer', id, 'REQUIRES_INPUT')).pending_interactions;
    const cancelled = expectRun(await api.cancel('expense-filer', id));
    expect(cancelled).toMatchObject({ state: 'CANCELLED', pending_interactions: [] });
    expectProblem(await api.respond('expense-filer', id, [{ interaction_id: approval!.interaction_id, decision: 'APPROVE' }]), 409, 'conflict', 'not_pending');
    expect(expectRun(await api.cancel('expense-filer', id)).state).toBe('CANCELLED');
  });

  test('a step that cannot be interrupted answers 409; the run then finishes', async () => {
    const id = await api.start('expense-filer');
    const [approval] = (await api.state('expense-filer', id, 'REQUIRES_INPUT')).pending_interactions;
    expectRun(await api.respond('expense-filer', id, [{ interaction_id: approval!.interaction_id, decision: 'APPROVE' }]));
    // The finance system call is under way from the third message on.
    await api.until('expense-filer', id, (r) => outputTexts(r).length === 3);
    const p = expectProblem(await api.cancel('expense-filer', id), 409, 'conflict', 'not_cancellable');
    expect(p.detail).toMatch(/cannot be interrupted/);
    expect((await api.state('expense-filer', id, 'SUCCEEDED')).error).toBeUndefined();
    // Finished: the snapshot, not an error.
    expect(expectRun(await api.cancel('expense-filer', id)).state).toBe('SUCCEEDED');
  });
});

describe('deadlines', { timeout: 60_000 }, () => {
  const short = listeningService({ memory: true, rateLimitPerMinute: 0, durableTimeoutMs: 1500, durableGraceMs: 800 });
  const fast = durableClient(() => short.url, TOKENS.agents);

  test('a run still active past its deadline and grace is FAILED at the next read', async () => {
    const id = await fast.start('long-runner');
    await sleepMs(1650);
    // Past the deadline the worker has stopped, but nothing is recorded until the grace is over.
    const stale = fast.runOf(await fast.get('long-runner', id));
    expect(stale.state).toBe('RUNNING');
    expect(Date.parse(stale.expires_at!)).toBeLessThan(Date.now());
    // Its worker gave up at the deadline: there is nothing left to cancel.
    expectProblem(await fast.cancel('long-runner', id), 409, 'conflict', 'not_cancellable');
    await sleepMs(900);
    const failed = fast.runOf(await fast.get('long-runner', id));
    expect(failed.state).toBe('FAILED');
    expect(failed.error).toMatchObject({ code: 'execution_deadline_exceeded', message: expect.stringContaining('1500 ms') });
    expect(failed.expires_at).toBeUndefined();
    expect(outputTexts(failed)).toEqual(outputTexts(stale));
  });

  test('a paused run never expires; an accepted decision starts a fresh deadline', async () => {
    const id = await fast.start('expense-filer');
    const paused = await fast.state('expense-filer', id, 'REQUIRES_INPUT');
    await sleepMs(2500);
    expect(fast.runOf(await fast.get('expense-filer', id)).state).toBe('REQUIRES_INPUT');
    const resumedAt = Date.now();
    const resumed = fast.runOf(await fast.respond('expense-filer', id, [{ interaction_id: paused.pending_interactions[0]!.interaction_id, decision: 'APPROVE' }]));
    expect(Date.parse(resumed.expires_at!)).toBeGreaterThanOrEqual(resumedAt + 1500 - 5);
    // The approve branch takes 1.7 s, longer than the 1.5 s deadline.
    await sleepMs(2500);
    expect(fast.runOf(await fast.get('expense-filer', id)).state).toBe('FAILED');
  });
});

describe('restarts', { timeout: 60_000 }, () => {
  test('an active run is not resumed after a restart and fails once overdue; a paused one can still be approved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'durable-'));
    // A deadline the steps before the second read keep well within, loaded machine included (4 s did not).
    const options = { dataDir: dir, rateLimitPerMinute: 0, durableTimeoutMs: 10_000, durableGraceMs: 300 };
    try {
      let svc = createService(options);
      let http = await listen(svc, 0);
      let url = http.url;
      const a = durableClient(() => url, TOKENS.agents);
      const longId = await a.start('long-runner');
      const pausedId = await a.start('expense-filer');
      const before = await a.until('long-runner', longId, (r) => outputTexts(r).length >= 1);
      const paused = await a.state('expense-filer', pausedId, 'REQUIRES_INPUT');
      await http.close();
      svc.close();

      svc = createService(options);
      http = await listen(svc, 0);
      url = http.url;
      const orphan = a.runOf(await a.get('long-runner', longId));
      expect(orphan.state).toBe('RUNNING');
      expectProblem(await a.cancel('long-runner', longId), 409, 'conflict', 'not_cancellable');
      expect(outputTexts(orphan).length).toBeGreaterThanOrEqual(outputTexts(before).length);
      await sleepMs(1100);
      // Not resumed: a second later nothing has changed.
      const later = a.runOf(await a.get('long-runner', longId));
      expect({ state: later.state, output: outputTexts(later), updated_at: later.updated_at }).toEqual({
        state: 'RUNNING',
        output: outputTexts(orphan),
        updated_at: orphan.updated_at,
      });

      expect(a.runOf(await a.get('expense-filer', pausedId)).pending_interactions).toEqual(paused.pending_interactions);
      expectRun(await a.respond('expense-filer', pausedId, [{ interaction_id: paused.pending_interactions[0]!.interaction_id, decision: 'REJECT' }]));
      expect(outputTexts(await a.state('expense-filer', pausedId, 'SUCCEEDED')).at(-2)).toMatch(/^Rejected/);

      await a.until('long-runner', longId, (r) => r.state === 'FAILED', 25_000);
      await http.close();
      svc.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
