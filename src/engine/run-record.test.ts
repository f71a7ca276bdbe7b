import { expect, it } from 'vitest';
import { ApiError } from '../lib/api-client';
import { initialRunState, runReducer } from './run-machine';
import { historyEntryOf, metricsOf, type RunRecord } from './run-record';
import { runRequest } from './run-request';

it('a refused run is as large as the refusal it got, in its head and in history alike', () => {
  const rawBody = JSON.stringify({ error: { code: 'durable_run_required', message: 'This agent pauses for tool approvals, which only a durable run can wait for.' } });
  const meta = { method: 'POST', url: '/api/agents/expense-filer/runs', status: 409, durationMs: 69, headers: [], rawBody, receivedAt: 1_069 };
  const refusal = new ApiError('http', 409, 'Durable Run Required', 'Run it as durable.', JSON.parse(rawBody), meta);
  const request = runRequest('platform', 'stream', { id: 'expense-filer', name: 'Expense Filer' }, { messages: [{ role: 'USER', content: [{ type: 'text', text: 'File it' }] }] });
  const sent = runReducer(initialRunState, { type: 'send', at: 1_000 });
  const record: RunRecord = {
    id: 'run_1',
    origin: 'sent',
    request,
    target: { profileId: 'reference', profileLabel: 'Reference service', mode: 'same-origin', target: '', baseUrl: '', fingerprint: 'f' },
    startedAt: 1_000,
    state: runReducer(sent, { type: 'refuse', at: 1_069, error: refusal }),
  };
  expect(metricsOf(record).bytes).toBe(new TextEncoder().encode(rawBody).length);
  expect(historyEntryOf(record).bytes).toBe(metricsOf(record).bytes);
});
