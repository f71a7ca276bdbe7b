/**
 * Revalidating a group's schema costs no body: the cached answer's ETag goes as
 * If-None-Match, the bundled reference service answers 304, and the query keeps its data.
 * Real fetch against the service on the test page's own origin; the browser's resource
 * timing says how many body bytes each request took.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../../lib/connection';
import { DEMO } from '../../../test-support/reference-service';
import { schemaPath, schemaQueryOptions, useSaveSchema, type SchemaResponse } from './schema';

const connection = { baseUrl: '', token: DEMO.global, mode: 'same-origin' as const, target: '', fingerprint: fingerprintOf(DEMO.global) };

/**
 * The browser's `n`th fetch of `path` (from 1): its status and the body bytes it took. Waited
 * for: a resource timing entry is added after its response ended, on a loaded machine a while
 * after the fetch's promise settled.
 */
async function fetchOf(path: string, n: number): Promise<{ status: number; bodyBytes: number }> {
  const entries = () => performance.getEntriesByType('resource').filter((e) => e.name.endsWith(path)) as PerformanceResourceTiming[];
  await waitFor(() => expect(entries().length).toBeGreaterThanOrEqual(n));
  const entry = entries()[n - 1]!;
  return { status: entry.responseStatus, bodyBytes: entry.encodedBodySize };
}

describe('schema query', () => {
  it('revalidates what it holds with If-None-Match: a 304, no body, the same data', async () => {
    performance.clearResourceTimings();
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const options = schemaQueryOptions(connection, 'sales');
    const first = await client.fetchQuery(options);
    expect(first.status).toBe(200);
    const etag = first.headers.find(([n]) => n === 'etag')?.[1];
    expect(etag).toMatch(/^"/);
    expect((await fetchOf(schemaPath('sales'), 1)).bodyBytes).toBeGreaterThan(0);

    await client.refetchQueries({ queryKey: options.queryKey });
    const again = client.getQueryData<SchemaResponse>(options.queryKey)!;
    expect(again.revalidation).toMatchObject({ status: 304 });
    expect(again.data).toEqual(first.data);
    expect(again.status).toBe(200);
    expect(await fetchOf(schemaPath('sales'), 2)).toEqual({ status: 304, bodyBytes: 0 });
  });

  it('keys the cache by the token’s fingerprint, never the token', () => {
    const key = JSON.stringify(schemaQueryOptions(connection, 'sales').queryKey);
    expect(key).not.toContain(DEMO.global);
    expect(key).toContain(connection.fingerprint);
  });

  it('a schema changed since is read whole again', async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const options = schemaQueryOptions(connection, 'revalidated');
    const put = (keys: unknown[]) =>
      fetch(schemaPath('revalidated'), { method: 'PUT', headers: { Authorization: `Bearer ${DEMO.global}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ metadataKeys: keys }) });
    expect((await put([{ name: 'a', propertyType: 'TEXT' }])).status).toBe(200);
    await client.fetchQuery(options);
    expect((await put([{ name: 'b', propertyType: 'TEXT' }])).status).toBe(200);
    await client.refetchQueries({ queryKey: options.queryKey });
    const now = client.getQueryData<SchemaResponse>(options.queryKey)!;
    expect(now.revalidation).toBeUndefined();
    expect(now.data).toEqual({ metadataKeys: [{ name: 'b', propertyType: 'TEXT' }] });
  });
});

it('a save answered after a profile switch refreshes the schema on the server that saved it (every token\u2019s copy), not on the one on screen by then', async () => {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const other = { ...connection, mode: 'direct' as const, target: 'https://other.example', fingerprint: 'another-profile' };
  const saver = schemaQueryOptions(connection, 'switched').queryKey;
  const sameServer = schemaQueryOptions({ ...connection, fingerprint: 'another-token' }, 'switched').queryKey;
  const onScreen = schemaQueryOptions(other, 'switched').queryKey;
  const otherGroup = schemaQueryOptions(connection, 'unrelated').queryKey;
  // Only whether each entry is invalidated matters, not what it holds.
  const held = (kept: string) => ({ kept }) as unknown as SchemaResponse;
  client.setQueryData(saver, held('before the save'));
  client.setQueryData(sameServer, held('read with another token'));
  client.setQueryData(onScreen, held('the other profile'));
  client.setQueryData(otherGroup, held('another group'));
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  const { result, rerender } = renderHook(({ c }: { c: Parameters<typeof useSaveSchema>[0] }) => useSaveSchema(c, 'switched'), {
    wrapper,
    initialProps: { c: connection as Parameters<typeof useSaveSchema>[0] },
  });
  let saved!: Promise<unknown>;
  act(() => {
    saved = result.current.mutateAsync({ metadataKeys: [{ name: 'a', propertyType: 'TEXT' }] });
  });
  // The user switches profile while the PUT is on its way.
  rerender({ c: other });
  await act(() => saved);
  expect(client.getQueryState(saver)?.isInvalidated).toBe(true);
  expect(client.getQueryState(sameServer)?.isInvalidated).toBe(true);
  expect(client.getQueryState(onScreen)?.isInvalidated).toBe(false);
  expect(client.getQueryState(otherGroup)?.isInvalidated).toBe(false);
});
