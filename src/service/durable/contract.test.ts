/**
 * Contract tests of durable runs with the official client (@gleanwork/api-client 0.20.15:
 * createRun with execution_mode DURABLE, getRun, cancelRun, respondToRun) against the
 * reference service on a real port. Every answer, as it came off the wire, is validated
 * with Ajv against the schemas written from the client's models
 * (src/contract/spec/client-models/durable-runs.schema.json).
 */
import { Glean, HTTPClient } from '@gleanwork/api-client';
import type { PlatformAgentRunResponse } from '@gleanwork/api-client/models/components';
import * as errors from '@gleanwork/api-client/models/errors';
import { describe, expect, test } from 'vitest';
import { listeningService, TOKENS } from '../test-http.ts';
import { clientModelErrors, USER_HI, type ClientModel } from './test-support.ts';

const server = listeningService();

interface Seen {
  method: string;
  path: string;
  status: number;
  contentType: string;
  requestBody: Promise<string>;
  text: Promise<string>;
}

function client(token = TOKENS.agents) {
  const seen: Seen[] = [];
  const httpClient = new HTTPClient();
  const bodies = new WeakMap<Request, Promise<string>>();
  httpClient.addHook('beforeRequest', (req) => {
    bodies.set(req, req.clone().text());
    return req;
  });
  httpClient.addHook('response', (res, req) => {
    seen.push({
      method: req.method,
      path: new URL(req.url).pathname,
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      requestBody: bodies.get(req) ?? Promise.resolve(''),
      text: res.clone().text(),
    });
  });
  const glean = new Glean({ apiToken: token, serverURL: server.url, httpClient });
  return {
    glean,
    async last() {
      const s = seen.at(-1);
      if (!s) throw new Error('The client received no answer.');
      return { ...s, json: JSON.parse(await s.text) as unknown, sent: JSON.parse((await s.requestBody) || 'null') as unknown };
    },
  };
}

async function expectWire(c: ReturnType<typeof client>, model: ClientModel, status: number) {
  const answer = await c.last();
  expect({ status: answer.status, body: answer.json }).toMatchObject({ status });
  expect(clientModelErrors(model, answer.json), JSON.stringify(answer.json)).toBe('');
  if (model === 'PlatformProblemDetail') expect(answer.contentType).toBe('application/problem+json');
  return answer;
}

async function rejection(p: Promise<unknown>): Promise<errors.PlatformProblemDetailError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(errors.PlatformProblemDetailError);
    return err as errors.PlatformProblemDetailError;
  }
  throw new Error('Expected the call to fail, and it succeeded.');
}

async function pollUntil(c: ReturnType<typeof client>, agentId: string, runId: string, state: string) {
  // Generous: a run reaches its state in well under a second, but on a loaded machine it took over 8.
  const end = Date.now() + 30_000;
  for (;;) {
    const { run } = await c.glean.agents.getRun(agentId, runId);
    await expectWire(c, 'PlatformAgentRunResponse', 200);
    if (run.state === state) return run;
    if (Date.now() > end) throw new Error(`Run ${runId} is ${run.state}, not ${state}.`);
    await new Promise((r) => setTimeout(r, 60));
  }
}

describe('durable runs with the official client', { timeout: 60_000 }, () => {
  test('createRun DURABLE answers 201 with the run; getRun follows it to SUCCEEDED with Date timestamps', async () => {
    const c = client();
    const created = (await c.glean.agents.createRun({ messages: USER_HI, execution_mode: 'DURABLE' }, 'echo-assistant')) as PlatformAgentRunResponse;
    const wire = await expectWire(c, 'PlatformAgentRunResponse', 201);
    expect(wire.sent).toMatchObject({ execution_mode: 'DURABLE', stream: false });
    expect(clientModelErrors('PlatformAgentRunCreateRequest', wire.sent)).toBe('');
    expect(created.run.state).toBe('QUEUED');
    expect(created.run.created_at).toBeInstanceOf(Date);
    expect(created.run.expires_at).toBeInstanceOf(Date);
    expect(created.request_id).toBe((wire.json as { request_id: string }).request_id);

    const done = await pollUntil(c, 'echo-assistant', created.run.run_id, 'SUCCEEDED');
    expect(done.run_id).toBe(created.run.run_id);
    expect(done.output).toEqual({ messages: [expect.objectContaining({ role: 'GLEAN_AI' })] });
    expect(done.expires_at).toBeUndefined();
  });

  test('the client always sends execution_mode; REQUEST_BOUND keeps waiting and streaming', async () => {
    const c = client();
    const waited = await c.glean.agents.createRun({ messages: USER_HI }, 'echo-assistant');
    expect((await c.last()).sent).toMatchObject({ execution_mode: 'REQUEST_BOUND', stream: false });
    expect(waited).toMatchObject({ run: { status: 'success' } });
    const streamed = await c.glean.agents.createRun({ messages: USER_HI, stream: true, execution_mode: 'REQUEST_BOUND' }, 'echo-assistant');
    expect(typeof streamed).toBe('string');
    expect(streamed as string).toContain('event: message');
  });

  test('respondToRun approves a pending tool call; the same run resumes and an identical retry answers the snapshot', async () => {
    const c = client();
    const { run } = (await c.glean.agents.createRun({ messages: USER_HI, execution_mode: 'DURABLE' }, 'expense-filer')) as PlatformAgentRunResponse;
    const paused = await pollUntil(c, 'expense-filer', run.run_id, 'REQUIRES_INPUT');
    const [approval] = paused.pending_interactions;
    expect(approval).toMatchObject({ type: 'TOOL_APPROVAL', display_name: 'Submit expense report', arguments: { report_id: 'EXP-1042' } });
    expect(approval!.expires_at).toBeInstanceOf(Date);
    expect(clientModelErrors('PlatformAgentRunToolApproval', ((await c.last()).json as { run: { pending_interactions: unknown[] } }).run.pending_interactions[0])).toBe('');

    const body = { run_id: run.run_id, responses: [{ interaction_id: approval!.interaction_id, decision: 'APPROVE' as const }] };
    const resumed = await c.glean.agents.respondToRun(body, 'expense-filer');
    const wire = await expectWire(c, 'PlatformAgentRunResponse', 200);
    expect(wire).toMatchObject({ method: 'POST', path: '/api/agents/expense-filer/responses' });
    expect(clientModelErrors('PlatformAgentRunResponsesRequest', wire.sent)).toBe('');
    expect(resumed.run).toMatchObject({ run_id: run.run_id, state: 'RUNNING', pending_interactions: [] });

    const retry = await c.glean.agents.respondToRun(body, 'expense-filer');
    await expectWire(c, 'PlatformAgentRunResponse', 200);
    expect(retry.run.run_id).toBe(run.run_id);

    const done = await pollUntil(c, 'expense-filer', run.run_id, 'SUCCEEDED');
    const texts = (done.output!.messages as { content: { text: string }[] }[]).map((m) => m.content[0]!.text);
    expect(texts.filter((t) => t.startsWith('The finance system accepted'))).toHaveLength(1);
  });

  test('respondToRun refuses conflicting, incomplete, duplicate and stale decisions with 409', async () => {
    const c = client();
    const { run } = (await c.glean.agents.createRun({ messages: USER_HI, execution_mode: 'DURABLE' }, 'trip-planner')) as PlatformAgentRunResponse;
    const [flight, hotel] = (await pollUntil(c, 'trip-planner', run.run_id, 'REQUIRES_INPUT')).pending_interactions;
    const f = flight!.interaction_id;
    const h = hotel!.interaction_id;
    const refuse = async (responses: { interaction_id: string; decision: 'APPROVE' | 'REJECT' }[], reason: string) => {
      const err = await rejection(c.glean.agents.respondToRun({ run_id: run.run_id, responses }, 'trip-planner'));
      expect(err.statusCode, reason).toBe(409);
      expect(err.code).toBe('conflict');
      const wire = await expectWire(c, 'PlatformProblemDetail', 409);
      expect((wire.json as { reason: string }).reason).toBe(reason);
    };
    await refuse([{ interaction_id: f, decision: 'APPROVE' }], 'incomplete_decisions');
    await refuse([{ interaction_id: f, decision: 'APPROVE' }, { interaction_id: f, decision: 'REJECT' }], 'duplicate_interaction');
    await refuse([{ interaction_id: 'int_nope', decision: 'APPROVE' }, { interaction_id: f, decision: 'APPROVE' }, { interaction_id: h, decision: 'APPROVE' }], 'not_pending');
    await c.glean.agents.respondToRun({ run_id: run.run_id, responses: [{ interaction_id: f, decision: 'REJECT' }, { interaction_id: h, decision: 'APPROVE' }] }, 'trip-planner');
    await expectWire(c, 'PlatformAgentRunResponse', 200);
    await refuse([{ interaction_id: f, decision: 'APPROVE' }, { interaction_id: h, decision: 'APPROVE' }], 'conflicting_decision');
    await refuse([{ interaction_id: h, decision: 'APPROVE' }], 'stale_decision');
  });

  test('cancelRun: a running run goes CANCELLING then CANCELLED, a paused one CANCELLED at once, repeats answer the snapshot', async () => {
    const c = client();
    const { run } = (await c.glean.agents.createRun({ messages: USER_HI, execution_mode: 'DURABLE' }, 'long-runner')) as PlatformAgentRunResponse;
    await pollUntil(c, 'long-runner', run.run_id, 'RUNNING');
    const cancelling = await c.glean.agents.cancelRun({ run_id: run.run_id }, 'long-runner');
    const wire = await expectWire(c, 'PlatformAgentRunResponse', 200);
    expect(wire).toMatchObject({ path: '/api/agents/long-runner/cancellations' });
    expect(clientModelErrors('PlatformAgentRunCancellationRequest', wire.sent)).toBe('');
    expect(cancelling.run.state).toBe('CANCELLING');
    await pollUntil(c, 'long-runner', run.run_id, 'CANCELLED');
    expect((await c.glean.agents.cancelRun({ run_id: run.run_id }, 'long-runner')).run.state).toBe('CANCELLED');
    await expectWire(c, 'PlatformAgentRunResponse', 200);

    const second = (await c.glean.agents.createRun({ messages: USER_HI, execution_mode: 'DURABLE' }, 'expense-filer')) as PlatformAgentRunResponse;
    await pollUntil(c, 'expense-filer', second.run.run_id, 'REQUIRES_INPUT');
    const cancelled = await c.glean.agents.cancelRun({ run_id: second.run.run_id }, 'expense-filer');
    await expectWire(c, 'PlatformAgentRunResponse', 200);
    expect(cancelled.run).toMatchObject({ state: 'CANCELLED', pending_interactions: [] });
  });

  test('cancelRun of a step that cannot be interrupted is 409', async () => {
    const c = client();
    const { run } = (await c.glean.agents.createRun({ messages: USER_HI, execution_mode: 'DURABLE' }, 'expense-filer')) as PlatformAgentRunResponse;
    const [approval] = (await pollUntil(c, 'expense-filer', run.run_id, 'REQUIRES_INPUT')).pending_interactions;
    await c.glean.agents.respondToRun({ run_id: run.run_id, responses: [{ interaction_id: approval!.interaction_id, decision: 'APPROVE' }] }, 'expense-filer');
    for (;;) {
      const { run: now } = await c.glean.agents.getRun('expense-filer', run.run_id);
      if ((now.output?.messages as unknown[]).length >= 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const err = await rejection(c.glean.agents.cancelRun({ run_id: run.run_id }, 'expense-filer'));
    expect(err.statusCode).toBe(409);
    await expectWire(c, 'PlatformProblemDetail', 409);
  });

  test('a failed run carries error { code, message } in the client\'s model', async () => {
    const c = client();
    const { run } = (await c.glean.agents.createRun({ messages: USER_HI, execution_mode: 'DURABLE' }, 'failing-job')) as PlatformAgentRunResponse;
    const failed = await pollUntil(c, 'failing-job', run.run_id, 'FAILED');
    expect(failed.error).toEqual({ code: 'tool_execution_failed', message: expect.stringContaining('export tool failed') });
  });

  test('404 for unknown runs, another token\'s runs and agent/run mismatches, on all three operations', async () => {
    const owner = client();
    const { run } = (await owner.glean.agents.createRun({ messages: USER_HI, execution_mode: 'DURABLE' }, 'long-runner')) as PlatformAgentRunResponse;
    const other = client(TOKENS.everything);
    const cases: [ReturnType<typeof client>, string, string][] = [
      [owner, 'long-runner', 'run_unknown'],
      [other, 'long-runner', run.run_id],
      [owner, 'echo-assistant', run.run_id],
      [owner, 'no-such-agent', run.run_id],
    ];
    for (const [c, agentId, runId] of cases) {
      const calls = [
        () => c.glean.agents.getRun(agentId, runId),
        () => c.glean.agents.cancelRun({ run_id: runId }, agentId),
        () => c.glean.agents.respondToRun({ run_id: runId, responses: [{ interaction_id: 'int_x', decision: 'APPROVE' }] }, agentId),
      ];
      for (const call of calls) {
        const err = await rejection(call());
        expect(err.statusCode, `${agentId}/${runId}`).toBe(404);
        expect(err.code).toBe('resource_not_found');
        await expectWire(c, 'PlatformProblemDetail', 404);
      }
    }
    await owner.glean.agents.cancelRun({ run_id: run.run_id }, 'long-runner');
  });

  test('createRun DURABLE with stream true or a chat_session_id, or a bad input, is 400 problem+json', async () => {
    const c = client();
    const bodies = [
      { messages: USER_HI, stream: true, execution_mode: 'DURABLE' as const },
      { messages: USER_HI, metadata: { chat_session_id: 's1' }, execution_mode: 'DURABLE' as const },
    ];
    for (const body of bodies) {
      const err = await rejection(c.glean.agents.createRun(body, 'echo-assistant'));
      expect(err.statusCode).toBe(400);
      await expectWire(c, 'PlatformProblemDetail', 400);
    }
    const bad = await rejection(c.glean.agents.createRun({ input: { topic: 'leave' }, execution_mode: 'DURABLE' }, 'hr-policy-form'));
    expect(bad.statusCode).toBe(400);
    expect(bad.errors?.map((e) => e.pointer)).toEqual(expect.arrayContaining(['/input/region', '/input/audience']));
    await expectWire(c, 'PlatformProblemDetail', 400);
    const denied = await rejection(client(TOKENS.hr).glean.agents.getRun('long-runner', 'run_x'));
    expect(denied.statusCode).toBe(403);
  });
});
