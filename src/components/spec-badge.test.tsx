import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { DEMO } from '../test-support/reference-service';
import { ApiError, apiRequest } from '../lib/api-client';
import { ErrorDetails } from './error-details';
import { SpecBadge, SpecEventBadge } from './spec-badge';

afterEach(cleanup);

// The lens's chunk (the spec and the validators the dev server generates for it) loads on first
// use; on a busy machine that alone can outlast a test's wait for the badge, so it loads first.
beforeAll(async () => {
  await (await import('../lib/spec-lens/lens')).loadLens();
});

const global = { baseUrl: '', token: DEMO.global };

it('a real answer of the reference service matches, and the badge says what it was checked against', async () => {
  const answer = await apiRequest(global, '/rest/api/index/custom-metadata/schema/sales');
  const user = userEvent.setup();
  render(<SpecBadge answer={answer} />);
  const badge = await screen.findByRole('button', { name: 'matches the public schema' });
  expect(badge.getAttribute('aria-expanded')).toBe('false');
  const details = document.getElementById(badge.getAttribute('aria-controls')!)!;
  expect(details.hidden).toBe(true);
  await user.click(badge);
  expect(badge.getAttribute('aria-expanded')).toBe('true');
  expect(details.hidden).toBe(false);
  expect(details.textContent).toContain('Checked against GET /rest/api/index/custom-metadata/schema/{groupName} → 200 application/json, schema CustomMetadataSchema (indexing.json).');
});

it('real agent answers of both APIs match, success and error', async () => {
  const agents = { baseUrl: '', token: DEMO.agents };
  const answers = [
    await apiRequest(agents, '/api/agents/echo-assistant'),
    await apiRequest(agents, '/api/agents/hr-policy-form/schemas'),
    await apiRequest(agents, '/api/agents/search', { method: 'POST', body: { name: 'echo' } }),
    await apiRequest(agents, '/rest/api/v1/agents/echo-assistant'),
    await apiRequest(agents, '/rest/api/v1/agents/hr-policy-form/schemas'),
    await apiRequest(agents, '/rest/api/v1/agents/search', { method: 'POST', body: { name: 'echo' } }),
    ((await apiRequest(agents, '/api/agents/no-such-agent').catch((e: unknown) => e)) as ApiError).meta!,
  ];
  expect(answers.map((a) => `${a.method} ${a.url} ${a.status}`)).toEqual([
    'GET /api/agents/echo-assistant 200',
    'GET /api/agents/hr-policy-form/schemas 200',
    'POST /api/agents/search 200',
    'GET /rest/api/v1/agents/echo-assistant 200',
    'GET /rest/api/v1/agents/hr-policy-form/schemas 200',
    'POST /rest/api/v1/agents/search 200',
    'GET /api/agents/no-such-agent 404',
  ]);
  render(
    <>
      {answers.map((a, i) => (
        <SpecBadge key={i} answer={a} />
      ))}
    </>,
  );
  await waitFor(() => expect(screen.getAllByRole('button', { name: 'matches the public schema' })).toHaveLength(answers.length));
});

it('an answer that differs expands to each pointer and what differs, undocumented fields counted apart', async () => {
  const real = await apiRequest<{ metadataKeys: { name: string }[] }>(global, '/rest/api/index/custom-metadata/schema/sales');
  // What an instance might answer instead: a key's name as a number, and a field the documentation does not have.
  const keys = real.data.metadataKeys.map((k, i) => (i === 1 ? { ...k, name: 42 } : k));
  const answer = { ...real, rawBody: JSON.stringify({ metadataKeys: keys, etag: 'W/"7"' }) };
  const user = userEvent.setup();
  render(<SpecBadge answer={answer} />);
  const badge = await screen.findByRole('button', { name: '1 difference · 1 undocumented field' });
  await user.click(badge);
  expect(badge.getAttribute('aria-expanded')).toBe('true');
  const list = screen.getByRole('list', { name: 'Differences from the public schema' });
  expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
    '/metadataKeys/1/name The documentation says a string here; the answer has an integer (42).',
    '/etag note “etag” is not in the public schema: the documentation does not describe it.',
  ]);
  await user.click(badge);
  expect(badge.getAttribute('aria-expanded')).toBe('false');
  expect(list.closest('[hidden]')).not.toBeNull();
});

it('an error answer is checked too, in the error details', async () => {
  const error = await apiRequest(global, '/rest/api/index/custom-metadata/schema/nosuchgroup').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).status).toBe(404);
  render(<ErrorDetails error={error as ApiError} />);
  const user = userEvent.setup();
  // Inside an error, a match is told neutrally, never as a green "matches".
  await user.click(await screen.findByRole('button', { name: 'error body as documented' }));
  expect(screen.queryByRole('button', { name: /matches/ })).toBeNull();
  expect(screen.getByText(/Checked against GET .* → 404 application\/json, schema ErrorInfoResponse/)).toBeTruthy();
});

it('says when the spec has no schema for the operation, or for an event, and why', async () => {
  const info = await apiRequest(global, '/sandbox/info');
  const user = userEvent.setup();
  render(
    <>
      <SpecBadge answer={info} />
      <SpecEventBadge stream={{ method: 'POST', url: '/api/agents/echo-assistant/runs', status: 200 }} event="message" data='{"messages":[]}' />
    </>,
  );
  await user.click(await screen.findByRole('button', { name: 'No public schema for this operation' }));
  expect(screen.getByText('The public spec documents no operation at /sandbox/info.')).toBeTruthy();
  await user.click(await screen.findByRole('button', { name: 'No public schema for event message' }));
  expect(screen.getByText(/No public schema for event “message”: platform.json names the event .* but publishes no schema for its data\./)).toBeTruthy();
});

it('the reference service’s own 409 durable_run_required is said to be its own code, not a difference from the public spec', async () => {
  const agents = { baseUrl: '', token: DEMO.agents };
  const body = { messages: [{ role: 'USER', content: [{ type: 'text', text: 'File my expenses' }] }] };
  const error = (await apiRequest(agents, '/api/agents/expense-filer/runs', { method: 'POST', body }).catch((e: unknown) => e)) as ApiError;
  expect([error.status, error.code]).toEqual([409, 'durable_run_required']);
  render(<ErrorDetails error={error} />);
  const user = userEvent.setup();
  await user.click(await screen.findByRole('button', { name: 'error body as documented · 1 reference-service code' }));
  const list = screen.getByRole('list', { name: 'Differences from the public schema' });
  expect(within(list).getByRole('listitem').textContent).toBe(
    '/code reference service “durable_run_required” is the reference service’s own code, which the public spec does not list: a stream or wait run of an agent that pauses for tool approvals, which only a durable run can wait for.',
  );
});

it('a durable run’s answers are checked against the official client’s models: created, read, cancelled', async () => {
  const agents = { baseUrl: '', token: DEMO.agents };
  const body = { execution_mode: 'DURABLE', messages: [{ role: 'USER', content: [{ type: 'text', text: 'Go' }] }] };
  const created = await apiRequest<{ run: { run_id: string } }>(agents, '/api/agents/long-runner/runs', { method: 'POST', body });
  const runId = created.data.run.run_id;
  const answers = [
    created,
    await apiRequest(agents, `/api/agents/long-runner/runs/${runId}`),
    await apiRequest(agents, '/api/agents/long-runner/cancellations', { method: 'POST', body: { run_id: runId } }),
  ];
  expect(answers.map((a) => a.status)).toEqual([201, 200, 200]);
  render(
    <>
      {answers.map((a, i) => (
        <SpecBadge key={i} answer={a} />
      ))}
    </>,
  );
  await waitFor(() => expect(screen.getAllByRole('button', { name: 'matches the official client’s model' })).toHaveLength(answers.length));
  expect(screen.queryByRole('button', { name: /No public schema/ })).toBeNull();
  const user = userEvent.setup();
  await user.click(screen.getAllByRole('button', { name: 'matches the official client’s model' })[1]!);
  expect(screen.getByText(/^Checked against GET \/api\/agents\/\{agent_id\}\/runs\/\{run_id\} → 200 application\/json, model PlatformAgentRunResponse of the official client @gleanwork\/api-client 0\.20\.15/)).toBeTruthy();
});
