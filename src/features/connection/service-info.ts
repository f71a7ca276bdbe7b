import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest, type Connection } from '../../lib/api-client';

export interface ServiceInfo {
  service: 'reference';
  agents: number;
  groups: number;
}

/** Answers only when the base URL is the bundled reference service. */
export function serviceInfoQueryOptions(connection: Connection) {
  return queryOptions({
    queryKey: ['service-info', connection.baseUrl] as const,
    queryFn: ({ signal }) => apiRequest<ServiceInfo>({ baseUrl: connection.baseUrl }, '/sandbox/info', { signal }),
    staleTime: 30_000,
  });
}

export function useServiceInfo(connection: Connection) {
  return useQuery(serviceInfoQueryOptions(connection));
}
