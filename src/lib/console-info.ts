import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from './api-client';

export interface ServiceInfo {
  service: 'reference';
  agents: number;
  groups: number;
  /** Groups with a schema (older services do not say). */
  groupNames?: string[];
  /** The public demo tokens the service was seeded with. */
  demoTokens?: DemoToken[];
}

export interface DemoToken {
  token: string;
  label: string;
  scopes: string[];
}

/** Answers only on the console's own origin, where the reference service is mounted; elsewhere it fails, and callers show nothing. */
export const serviceInfoQueryOptions = queryOptions({
  queryKey: ['console', 'service-info'] as const,
  queryFn: async ({ signal }) => (await apiRequest<ServiceInfo>({ baseUrl: '' }, '/sandbox/info', { signal })).data,
  staleTime: 60_000,
});

export function useServiceInfo() {
  return useQuery(serviceInfoQueryOptions);
}

/** Upstream origins the console's server was started with (`npm start -- --upstream URL`). */
export const upstreamsQueryOptions = queryOptions({
  queryKey: ['console', 'upstreams'] as const,
  queryFn: async ({ signal }) => (await apiRequest<{ upstreams: string[] }>({ baseUrl: '' }, '/console/upstreams', { signal })).data.upstreams,
  staleTime: Infinity,
});

export function useUpstreams() {
  return useQuery(upstreamsQueryOptions);
}
