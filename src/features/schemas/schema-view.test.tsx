/** A group of thousands of keys, as a hostile instance may answer (issue 27): listed in part, with a filter. */
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import type { MetadataSchema } from '../../contract/metadata';
import type { ApiResponse } from '../../lib/api-client';
import { SchemaView } from './schema-view';

afterEach(() => cleanup());

/** The schema GET's answer for `group`, as the api client gives it. */
function answered(data: MetadataSchema, group: string): ApiResponse<MetadataSchema> {
  return {
    method: 'GET',
    url: `/rest/api/index/custom-metadata/schema/${group}`,
    status: 200,
    durationMs: 3,
    headers: [['content-type', 'application/json']],
    rawBody: JSON.stringify(data),
    receivedAt: 0,
    data,
  };
}

it('lists the first 200 of 250 keys, says so, and filters them by name', async () => {
  const user = userEvent.setup();
  const data: MetadataSchema = { metadataKeys: Array.from({ length: 250 }, (_, i) => ({ name: `key${i + 1}`, propertyType: 'TEXT' })) };
  render(<SchemaView response={answered(data, 'wide')} group="wide" />);
  expect(screen.getByRole('tab', { name: 'Keys (250)' })).toBeTruthy();
  const table = screen.getByRole('table', { name: 'Keys of group wide' });
  expect(table.querySelectorAll('tbody tr')).toHaveLength(200);
  expect(screen.getByRole('note').textContent).toBe('✂ 250 keys; the first 200 are listed. The Raw JSON tab has them all.');
  await user.type(screen.getByRole('searchbox', { name: 'Filter keys by name' }), 'key25');
  expect(table.querySelectorAll('tbody tr')).toHaveLength(2);
  expect(screen.getByRole('note').textContent).toBe('✂ 2 of 250 keys match; the first 2 are listed. The Raw JSON tab has them all.');
});

it('a key kept out of search (skipIndexing) is not said to be matched in search', () => {
  const data: MetadataSchema = {
    metadataKeys: [
      { name: 'summary', propertyType: 'TEXT' },
      { name: 'internal_note', propertyType: 'TEXT', skipIndexing: true },
      { name: 'region', propertyType: 'PICKLIST', skipIndexing: true },
    ],
  };
  render(<SchemaView response={answered(data, 'sales')} group="sales" />);
  const rows = [...screen.getByRole('table', { name: 'Keys of group sales' }).querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
  expect(rows).toEqual([
    ['summary', 'TEXT', 'single free text, matched in full-text search', 'searchable'],
    ['internal_note', 'TEXT', 'single free text; not indexed: stored with the document, never matched or used as a facet', 'stored only (skipIndexing)'],
    ['region', 'PICKLIST', 'one value from a small set; not indexed: stored with the document, never matched or used as a facet', 'stored only (skipIndexing)'],
  ]);
});
