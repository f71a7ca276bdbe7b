/**
 * A run sent with X-Sandbox-Fault (the run options' "Inject a fault (reference service)"):
 * the header goes with its one POST to the bundled reference service, which answers the fault
 * asked for, and the run's record (history, Run again) keeps it. Real fetch, real service.
 */
import { waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO, mintAgentsToken, referenceConnection } from '../../../test-support/reference-service';
import { faultFieldsOf, faultHeaderOf, NO_FAULT } from '../../../engine/fault-fields';
import { listRuns, wipeHistory } from '../../../db/history';
import { faultOfRequest, runRequest, withSandboxFault } from '../../../engine/run-request';
import { consoleRunStore } from '../../../hooks/console-run-store';

const USER_HI = [{ role: 'USER' as const, content: [{ type: 'text' as const, text: 'Hi there' }] }];
const echo = (mode: 'stream' | 'wait' | 'durable') => runRequest('platform', mode, { id: 'echo-assistant', name: 'Echo Assistant' }, { messages: USER_HI });

beforeEach(async () => {
  await wipeHistory();
});

describe('a run with a fault', () => {
  it('drop-after: the stream breaks after that many events and the run is Interrupted, with them kept', async () => {
    const store = consoleRunStore();
    const connection = referenceConnection(await mintAgentsToken(), 'fault-fingerprint');
    const request = withSandboxFault(echo('stream'), 'drop-after=2', 'same-origin');
    const run = store.start(connection, request)!;
    await waitFor(() => expect(store.get(run.id)!.state.status).toBe('interrupted'), { timeout: 10_000 });
    expect(store.get(run.id)!.log!.events.map((e) => e.id)).toEqual(['1', '2']);
    const [entry] = await listRuns();
    expect(entry!.request.headers).toEqual({ 'X-Sandbox-Fault': 'drop-after=2' });
    expect(entry!.status).toBe('interrupted');
  });

  it('status=429 with retry-after: a wait run is refused with that status and Retry-After', async () => {
    const store = consoleRunStore();
    const connection = referenceConnection(await mintAgentsToken(), 'fault-fingerprint');
    const run = store.start(connection, withSandboxFault(echo('wait'), 'status=429; retry-after=7', 'same-origin'))!;
    await waitFor(() => expect(store.get(run.id)!.state.status).toBe('refused'), { timeout: 10_000 });
    const refusal = store.get(run.id)!.state.refusal!;
    expect(refusal.status).toBe(429);
    expect(refusal.code).toBe('rate_limit_exceeded');
    expect(refusal.header('retry-after')).toBe('7');
  });

  it('a durable run asked for a 503 is refused at its POST', async () => {
    const store = consoleRunStore();
    const connection = referenceConnection(DEMO.agents, 'fault-fingerprint');
    const run = store.start(connection, withSandboxFault(echo('durable'), 'status=503', 'same-origin'))!;
    await waitFor(() => expect(store.get(run.id)!.state.status).toBe('refused'), { timeout: 10_000 });
    expect(store.get(run.id)!.state.refusal!.status).toBe(503);
  });
});

describe('the fault settings', () => {
  it('are added only for the bundled reference service, never for an instance', () => {
    expect(withSandboxFault(echo('stream'), 'drop-after=2', 'same-origin').headers).toEqual({ 'X-Sandbox-Fault': 'drop-after=2' });
    expect(withSandboxFault(echo('stream'), 'drop-after=2', 'proxy').headers).toBeUndefined();
    expect(withSandboxFault(echo('stream'), 'drop-after=2', 'direct').headers).toBeUndefined();
    // A request moved to an instance loses the fault it had.
    expect(withSandboxFault(withSandboxFault(echo('stream'), 'drop-after=2', 'same-origin'), 'drop-after=2', 'direct').headers).toBeUndefined();
  });

  it('read back from a run for Run again, and say why when the service would refuse them', () => {
    const fields = { ...NO_FAULT, status: '429', retryAfter: '7', delayFirst: '1500' };
    const header = faultHeaderOf(fields);
    expect(header).toEqual({ value: 'status=429; retry-after=7; delay-first=1500' });
    expect(faultFieldsOf(faultOfRequest({ headers: { 'X-Sandbox-Fault': header.value! } }))).toEqual(fields);
    expect(faultHeaderOf(NO_FAULT)).toEqual({});
    expect(faultHeaderOf({ ...NO_FAULT, retryAfter: '5' }).problem).toMatch(/retry-after goes with status=429 or status=503/);
    expect(faultHeaderOf({ ...NO_FAULT, dropAfter: 'three' }).problem).toMatch(/drop-after takes events/);
    expect(faultFieldsOf(undefined)).toEqual(NO_FAULT);
  });
});
