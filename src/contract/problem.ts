/** RFC 9457 problem details, as the platform API sends them (docs/api.md, "Error families"). */

export const PROBLEM_CODES = {
  invalid_request: { status: 400, title: 'Invalid Request' },
  missing_required_field: { status: 400, title: 'Missing Required Field' },
  invalid_parameter: { status: 400, title: 'Invalid Parameter' },
  authentication_required: { status: 401, title: 'Authentication Required' },
  token_expired: { status: 401, title: 'Token Expired' },
  insufficient_permissions: { status: 403, title: 'Insufficient Permissions' },
  spend_limit_exceeded: { status: 403, title: 'Spend Limit Exceeded' },
  resource_not_found: { status: 404, title: 'Resource Not Found' },
  method_not_allowed: { status: 405, title: 'Method Not Allowed' },
  request_timeout: { status: 408, title: 'Request Timeout' },
  conflict: { status: 409, title: 'Conflict' },
  /** Reference service: a stream or wait run of an agent that pauses for tool approvals, which only a durable run can wait for. */
  durable_run_required: { status: 409, title: 'Durable Run Required' },
  request_too_large: { status: 413, title: 'Request Too Large' },
  unsupported_media_type: { status: 415, title: 'Unsupported Media Type' },
  tools_unauthorized: { status: 422, title: 'Tools Unauthorized' },
  rate_limit_exceeded: { status: 429, title: 'Rate Limit Exceeded' },
  internal_error: { status: 500, title: 'Internal Error' },
  service_unavailable: { status: 503, title: 'Service Unavailable' },
} as const;

export type ProblemCode = keyof typeof PROBLEM_CODES;

/**
 * Codes the reference service and the console's own server send that the public spec's code
 * list (platform.json, ProblemDetailCode) does not have, with what each answers. The spec lens
 * marks them as the reference service's own rather than as an instance's differences; a test
 * (src/service/reference-codes.test.ts) holds this list to what the service sends.
 */
export const REFERENCE_ONLY_CODES: ReadonlyMap<string, string> = new Map([
  ['durable_run_required', 'a stream or wait run of an agent that pauses for tool approvals, which only a durable run can wait for'],
  ['unsupported_media_type', 'a body sent as something other than JSON'],
  ['host_not_allowed', 'a request whose Host is neither a loopback name nor one given with --allowed-host'],
  ['upstream_not_allowed', 'a request through the console’s server to an instance it was not started with (--upstream)'],
  ['bad_gateway', 'the console’s server could not reach the instance, or the instance answered what it does not pass on'],
  ['sandbox_fault', 'an error status asked for with X-Sandbox-Fault, for one the vendor names no code for (e.g. 418)'],
]);

export interface ProblemFieldError {
  pointer: string;
  detail: string;
  code?: string;
}

export interface ProblemDetail {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  documentation_url?: string;
  errors?: ProblemFieldError[];
  [extension: string]: unknown;
}

export const PROBLEM_TYPE_BASE = 'https://developers.glean.com/errors/';

export function problemType(code: string): string {
  return PROBLEM_TYPE_BASE + code.replace(/_/g, '-');
}

export function isProblemDetail(value: unknown): value is ProblemDetail {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.title === 'string' && typeof v.status === 'number';
}
