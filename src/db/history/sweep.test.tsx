/**
 * The cut-off sweep tells each run truthfully: a durable run cut off before its id arrived is
 * found again when the service says which run it started (and followed from then on), said
 * never started when the service has none, and said possibly started when nothing can be known.
 */
import { beforeEach, expect, it } from 'vitest';
import { runRequest } from '../../engine/run-request';
import { FOUND_AGAIN_NOTE, historyRepository, ID_NEVER_ARRIVED, listRuns, NEVER_STARTED, saveRun, sweepCutOff, wipeHistory, type FindRun } from './index';
import { entry } from './test-entries';

const durable = (id: string) => entry(id, Date.now() - 5_000, { status: 'waiting', request: runRequest('platform', 'durable', { id: 'long-runner' }, { messages: [] }), transitions: [{ status: 'waiting', at: Date.now() - 5_000 }] });
const byId = async (id: string) => (await listRuns()).find((e) => e.id === id)!;

beforeEach(async () => {
  await wipeHistory();
});

it('finds a durable run again by its entry’s id, or says it never started, or that it may have', async () => {
  for (const id of ['found', 'none', 'unknown', 'failing']) await saveRun(durable(id));
  const asked: string[] = [];
  const findRun: FindRun = async (e) => {
    asked.push(e.id);
    if (e.id === 'failing') throw new Error('no answer');
    return e.id === 'found' ? { runId: 'run_at_service' } : e.id === 'none' ? 'none' : undefined;
  };
  expect(await sweepCutOff({ findRun })).toBe(4);
  expect(asked.sort()).toEqual(['failing', 'found', 'none', 'unknown']);
  const found = await byId('found');
  expect(found).toMatchObject({ status: 'QUEUED', runId: 'run_at_service' });
  expect(found.transitions?.at(-1)).toMatchObject({ status: 'QUEUED', note: FOUND_AGAIN_NOTE });
  expect((await byId('none')).note).toContain(NEVER_STARTED);
  expect((await byId('unknown')).note).toContain(ID_NEVER_ARRIVED);
  expect((await byId('failing')).note).toContain(ID_NEVER_ARRIVED);
  // A run found again is a run history follows: no later sweep takes it for cut off.
  expect(await sweepCutOff({ findRun })).toBe(0);
});

it('never asks the service about a run a tab still holds', async () => {
  await saveRun(durable('held'));
  const release = await historyRepository().presence.hold('mac-run:held');
  try {
    expect(await sweepCutOff({ findRun: async () => ({ runId: 'run_x' }) })).toBe(0);
    expect((await byId('held')).status).toBe('waiting');
  } finally {
    release();
  }
});
