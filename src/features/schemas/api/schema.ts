import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CustomProperty, MetadataSchema } from '../../../contract/metadata';
import { apiRequest, type ApiResponse } from '../../../lib/api-client';
import type { ActiveConnection, Connection } from '../../../lib/connection';

type KeyedConnection = Pick<ActiveConnection, 'baseUrl' | 'fingerprint'> & Connection;

/** Keys carry the base URL and the token's fingerprint: one token's answer never shows under another. */
export const schemaKeys = {
  all: ['schemas'] as const,
  detail: (c: Pick<ActiveConnection, 'baseUrl' | 'fingerprint'>, group: string) =>
    [...schemaKeys.all, 'detail', c.baseUrl, c.fingerprint, group.toLowerCase()] as const,
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
    queryFn: ({ signal }) => apiRequest<MetadataSchema>(connection, schemaPath(group), { signal }),
    staleTime: 30_000,
  });
}

export function useSchema(connection: KeyedConnection, group: string, enabled: boolean) {
  return useQuery({ ...schemaQueryOptions(connection, group), enabled });
}

export function useSaveSchema(connection: KeyedConnection, group: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (schema: MetadataSchema) => apiRequest<unknown>(connection, schemaPath(group), { method: 'PUT', body: schema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: schemaQueryOptions(connection, group).queryKey }),
  });
}

export function useDeleteSchema(connection: KeyedConnection, group: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiRequest<unknown>(connection, schemaPath(group), { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: schemaQueryOptions(connection, group).queryKey }),
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
