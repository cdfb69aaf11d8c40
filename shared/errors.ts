/**
 * The error hierarchy: every failure a partner can act on is one class with one problem
 * code (spec section 7, contract-decisions section 4). Callers branch on the class, never on
 * message text; `shared/http/problem.ts` renders them, and nothing else writes an error body.
 */
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
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_failed: { status: 422, title: 'Validation failed' },
  rate_limited: { status: 429, title: 'Rate limited' },
  bad_request: { status: 400, title: 'Bad request' },
  internal_error: { status: 500, title: 'Internal error' },
  not_implemented: { status: 501, title: 'Not implemented yet' },
  tenant_unavailable: { status: 503, title: 'Tenant unavailable' },
  gateway_timeout: { status: 504, title: 'Gateway timeout' },
} as const;
export type ProblemCode = keyof typeof PROBLEM_CODES;

export interface FieldError {
  /** JSON Pointer into the body, or `query:name` / `header:name` / `path:name`. */
  pointer: string;
  message: string;
}

export abstract class ProblemError extends Error {
  abstract readonly code: ProblemCode;
  /** Extra members of the problem document (RFC 9457 extensions). */
  readonly extensions: Record<string, unknown> = {};
  readonly headers: Record<string, string> = {};
}

export class InvalidSignatureError extends ProblemError {
  override readonly name = 'InvalidSignatureError';
  readonly code = 'invalid_signature';
}
export class ExpiredTimestampError extends ProblemError {
  override readonly name = 'ExpiredTimestampError';
  readonly code = 'expired_timestamp';
}
export class ReplayedNonceError extends ProblemError {
  override readonly name = 'ReplayedNonceError';
  readonly code = 'replay_nonce';
}
export class InsufficientScopeError extends ProblemError {
  override readonly name = 'InsufficientScopeError';
  readonly code = 'insufficient_scope';
  constructor(requiredScope: string) {
    super(`This operation requires the scope ${requiredScope}.`);
    this.extensions.required_scope = requiredScope;
  }
}
export class NotFoundError extends ProblemError {
  override readonly name = 'NotFoundError';
  readonly code = 'resource_not_found';
}
export class MethodNotAllowedError extends ProblemError {
  override readonly name = 'MethodNotAllowedError';
  readonly code = 'method_not_allowed';
  constructor(allowed: readonly string[]) {
    super(`Allowed methods: ${allowed.join(', ')}.`);
    this.headers.Allow = allowed.join(', ');
  }
}
export class IdempotencyConflictError extends ProblemError {
  override readonly name = 'IdempotencyConflictError';
  readonly code = 'idempotency_key_reused';
  readonly reason: 'payload_mismatch' | 'in_progress';
  constructor(reason: 'payload_mismatch' | 'in_progress') {
    super(
      reason === 'in_progress'
        ? 'A request with this Idempotency-Key is still being processed; retry after the indicated delay.'
        : 'This Idempotency-Key was already used with a different method, path or body.',
    );
    this.reason = reason;
    this.extensions.reason = reason;
    if (reason === 'in_progress') this.headers['Retry-After'] = '1';
  }
}
export class StaleVersionError extends ProblemError {
  override readonly name = 'StaleVersionError';
  readonly code = 'stale_source_version';
  constructor(currentSourceVersion: string, detail?: string) {
    super(detail ?? `The stored source_version is ${currentSourceVersion}; send a newer one.`);
    this.extensions.current_source_version = currentSourceVersion;
  }
}
export class InvalidTransitionError extends ProblemError {
  override readonly name = 'InvalidTransitionError';
  readonly code = 'invalid_state_transition';
}
export class PayloadTooLargeError extends ProblemError {
  override readonly name = 'PayloadTooLargeError';
  readonly code = 'payload_too_large';
}
export class UnsupportedMediaTypeError extends ProblemError {
  override readonly name = 'UnsupportedMediaTypeError';
  readonly code = 'unsupported_media_type';
}
export class ValidationError extends ProblemError {
  override readonly name = 'ValidationError';
  readonly code = 'validation_failed';
  readonly errors: FieldError[];
  constructor(errors: FieldError[], detail = 'The request does not match the schema or its invariants.') {
    super(detail);
    this.errors = errors;
    this.extensions.errors = errors;
  }
}
export class RateLimitedError extends ProblemError {
  override readonly name = 'RateLimitedError';
  readonly code = 'rate_limited';
  constructor(retryAfterSeconds: number) {
    super(`Request rate exceeded for this key; retry after ${retryAfterSeconds} s.`);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}
export class TenantUnavailableError extends ProblemError {
  override readonly name = 'TenantUnavailableError';
  readonly code = 'tenant_unavailable';
  constructor(retryAfterSeconds: number) {
    super('This tenant is currently unavailable.');
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}
export class NotImplementedError extends ProblemError {
  override readonly name = 'NotImplementedError';
  readonly code = 'not_implemented';
}
