/**
 * The one mapping from errors to problem+json (RFC 9457, contract-decisions section 4): the
 * status and title of every code, the headers and extension members each error's data gives.
 * Unknown errors become a generic 500 carrying only the request id; their details go to the log.
 */
import {
  DomainError,
  type ErrorCode,
  IdempotencyConflictError,
  InsufficientScopeError,
  MethodNotAllowedError,
  RateLimitedError,
  ResultNotAvailableError,
  ServiceBusyError,
  StaleVersionError,
  TenantUnavailableError,
  ValidationError,
} from '../errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const PROBLEM_CODES = {
  invalid_signature: { status: 401, title: 'Invalid signature' },
  expired_timestamp: { status: 401, title: 'Timestamp outside the accepted window' },
  replay_nonce: { status: 401, title: 'Nonce already used' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  resource_not_found: { status: 404, title: 'Resource not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  idempotency_key_reused: { status: 409, title: 'Idempotency key reused' },
  stale_source_version: { status: 409, title: 'Stale source version' },
  invalid_state_transition: { status: 409, title: 'Invalid state transition' },
  limit_reached: { status: 409, title: 'Tenant limit reached' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_failed: { status: 422, title: 'Validation failed' },
  rate_limited: { status: 429, title: 'Rate limited' },
  bad_request: { status: 400, title: 'Bad request' },
  internal_error: { status: 500, title: 'Internal error' },
  not_implemented: { status: 501, title: 'Not implemented yet' },
  tenant_unavailable: { status: 503, title: 'Tenant unavailable' },
  gateway_timeout: { status: 504, title: 'Gateway timeout' },
} as const satisfies Record<ErrorCode, { status: number; title: string }>;
export type ProblemCode = ErrorCode;

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  code: ProblemCode;
  detail: string;
  instance: string;
  request_id: string;
  [extension: string]: unknown;
}

export const problemType = (code: ProblemCode) => `urn:commerce-interface:problem:${code}`;

/** The code's entry on the API reference page (its `Problems` section), where the deployment names the page. */
export const problemDocUrl = (code: ProblemCode, referenceUrl: string) => `${referenceUrl}#problem-${code}`;

export interface RenderedProblem {
  status: number;
  headers: Record<string, string>;
  body: ProblemDocument;
}

/** Headers an error's data calls for (Retry-After, Allow). */
function headersOf(error: DomainError): Record<string, string> {
  if (error instanceof RateLimitedError || error instanceof TenantUnavailableError || error instanceof ServiceBusyError) {
    return { 'Retry-After': String(error.retryAfterSeconds) };
  }
  if (error instanceof IdempotencyConflictError && error.reason === 'in_progress') return { 'Retry-After': '1' };
  if (error instanceof MethodNotAllowedError) return { Allow: error.allowed.join(', ') };
  return {};
}

/** Extension members of the problem document an error's data calls for. */
function extensionsOf(error: DomainError): Record<string, unknown> {
  if (error instanceof ValidationError) return { errors: error.errors, ...(error.total > error.errors.length ? { errors_total: error.total } : {}) };
  if (error instanceof InsufficientScopeError) return { required_scope: error.requiredScope };
  if (error instanceof IdempotencyConflictError) return { reason: error.reason };
  if (error instanceof StaleVersionError) return { current_source_version: error.currentSourceVersion };
  if (error instanceof ResultNotAvailableError) return { processing_state: error.processingState, result_expected: error.resultExpected };
  return {};
}

export function renderProblem(error: unknown, instance: string, requestId: string, referenceUrl?: string): RenderedProblem {
  const known = error instanceof DomainError;
  const code: ProblemCode = known ? error.code : 'internal_error';
  const { status, title } = PROBLEM_CODES[code];
  const detail = known ? error.message : 'An unexpected error occurred. Quote the request_id when contacting support.';
  return {
    status,
    headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, ...(known ? headersOf(error) : {}) },
    body: {
      type: problemType(code),
      title,
      status,
      code,
      detail,
      instance,
      request_id: requestId,
      ...(referenceUrl ? { doc_url: problemDocUrl(code, referenceUrl) } : {}),
      ...(known ? extensionsOf(error) : {}),
    },
  };
}
