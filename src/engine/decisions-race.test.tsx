/**
 * The decisions a user sent on a paused durable run are part of its record (its states
 * seen, history's "you approved …"), whichever answer arrives first: the decisions' own, or a
 * read that already sees the run going on.
 */
import { waitFor } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { DEMO, referenceConnection } from '../test-support/reference-service';
import { slowNetwork } from '../test-support/slow-network';
import { runRequest } from './run-request';
import { RunStore } from './run-store';
import type { RunConnection } from './run-record';

const CONNECTION: RunConnection = referenceConnection(DEMO.agents, 'test-fingerprint');

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

it('an approval whose answer arrives after a read that saw the run resume is still recorded as the user’s decision', async () => {
  const store = new RunStore({ save: async () => undefined });
  const request = runRequest('platform', 'durable', { id: 'expense-filer', name: 'Expense Filer' }, { messages: [{ role: 'USER', content: [{ type: 'text', text: 'File my receipts' }] }] });
  const { id } = store.start(CONNECTION, request)!;
  const unwatch = store.watch(id);
  try {
    await waitFor(() => expect(store.get(id)!.state.status).toBe('REQUIRES_INPUT'), { timeout: 20_000 });
    const pending = store.get(id)!.state.durable!.run.pending_interactions;
    // The decisions reach the service at once; their answer is slow to come back.
    restore = slowNetwork({ match: (url, method) => method === 'POST' && url.endsWith('/responses'), delayMs: 800 }).restore;
    const responded = store.respond(id, Object.fromEntries(pending.map((p) => [p.interaction_id, 'APPROVE' as const])));
    await new Promise((r) => setTimeout(r, 250));
    // A read (a poll, "Read now") answered meanwhile finds the run going on again at the service.
    await store.read(id);
    await responded;
    expect(store.get(id)!.state.status).not.toBe('REQUIRES_INPUT');
    const decisions = store.get(id)!.state.transitions.flatMap((t) => t.decisions ?? []);
    expect(decisions.map((d) => d.decision)).toEqual(['APPROVE']);
  } finally {
    unwatch();
    await store.cancel(id).catch(() => undefined);
  }
});
