import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CustomProperty, MetadataSchema } from '../../../contract/metadata';
import { apiRequest, type ApiResponse } from '../../../lib/api-client';
import { connectionKey, type Connection, type ConnectionIdentity } from '../../../lib/connection';

type KeyedConnection = ConnectionIdentity & Connection;

/** Keys start with the connection's identity: one profile's or token's answer never shows under another. */
export const schemaKeys = {
  all: (c: ConnectionIdentity) => [...connectionKey(c), 'schemas'] as const,
  detail: (c: ConnectionIdentity, group: string) => [...schemaKeys.all(c), 'detail', group.toLowerCase()] as const,
};

export function schemaPath(group: string): string {
  return `/rest/api/index/custom-metadata/schema/${encodeURIComponent(group)}`;
}

export function documentPath(docId: string, group: string): string {
  return `/rest/api/index/document/${encodeURIComponent(docId)}/custom-metadata/${encodeURIComponent(group)}`;
}

export function schemaQueryOptions(connection: KeyedConnection, group: string) {
  return queryOptions({
    queryKey: schemaKeys.detail(connection, group),
    // What the cache holds for this key (the connection's identity, never its token) is
    // revalidated: its ETag goes as If-None-Match, and a 304 costs no body.
    queryFn: ({ signal, client, queryKey }) => apiRequest<MetadataSchema>(connection, schemaPath(group), { signal, held: client.getQueryData<SchemaResponse>(queryKey) }),
    staleTime: 30_000,
    // Nothing is asked while the connection cannot send (no instance URL yet).
    enabled: !connection.problem,
  });
}

export function useSchema(connection: KeyedConnection, group: string, enabled: boolean) {
  const options = schemaQueryOptions(connection, group);
  return useQuery({ ...options, enabled: enabled && options.enabled });
}

/**
 * Every cached copy of `group`'s schema on the server `c` talks to (its mode and target),
 * whatever token read it: a change saved with one token is stale under every other, and an
 * edit started from such a copy would save the change away.
 */
function sameServerSchema(c: ConnectionIdentity, group: string): (query: { queryKey: readonly unknown[] }) => boolean {
  const mine = schemaKeys.detail(c, group);
  return ({ queryKey: k }) =>
    k.length === mine.length && k[0] === mine[0] && k[1] === mine[1] && k[2] === mine[2] && k.slice(4).every((part, i) => part === mine[4 + i]);
}

export function useSaveSchema(connection: KeyedConnection, group: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (schema: MetadataSchema) => apiRequest<unknown>(connection, schemaPath(group), { method: 'PUT', body: schema }),
    // What it acts on is taken when the save is called: an answer after a profile switch
    // refreshes the schema on the server that saved it, not on the one on screen by then.
    onMutate: () => ({ stale: sameServerSchema(connection, group) }),
    onSuccess: (_answer, _schema, sent) => queryClient.invalidateQueries({ predicate: sent.stale }),
  });
}

export function useDeleteSchema(connection: KeyedConnection, group: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiRequest<unknown>(connection, schemaPath(group), { method: 'DELETE' }),
    onMutate: () => ({ stale: sameServerSchema(connection, group) }),
    onSuccess: (_answer, _none, sent) => queryClient.invalidateQueries({ predicate: sent.stale }),
  });
}

export function useSetDocumentValues(connection: KeyedConnection, group: string) {
  return useMutation({
    mutationFn: ({ docId, values }: { docId: string; values: CustomProperty[] }) =>
      apiRequest<unknown>(connection, documentPath(docId, group), { method: 'PUT', body: { customMetadata: values } }),
  });
}

export function useRemoveDocumentValues(connection: KeyedConnection, group: string) {
  return useMutation({
    mutationFn: ({ docId }: { docId: string }) => apiRequest<unknown>(connection, documentPath(docId, group), { method: 'DELETE' }),
  });
}

export type SchemaResponse = ApiResponse<MetadataSchema>;
