/**
 * The one error tree: every failure a partner can act on is one class, carrying the data the
 * caller needs (never a status code or a header). Callers branch on the class, never on
 * message text; `shared/http/problem.ts` is the one place that maps them to problem+json
 * (spec section 7, contract-decisions section 4).
 */

/** The problem codes of the contract, in the order the contract lists them. */
export const ERROR_CODES = [
  'invalid_signature',
  'expired_timestamp',
  'replay_nonce',
  'insufficient_scope',
  'resource_not_found',
  'method_not_allowed',
  'idempotency_key_reused',
  'stale_source_version',
  'invalid_state_transition',
  'limit_reached',
  'payload_too_large',
  'unsupported_media_type',
  'validation_failed',
  'rate_limited',
  'bad_request',
  'internal_error',
  'not_implemented',
  'tenant_unavailable',
  'gateway_timeout',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldError {
  /** JSON Pointer into the body, or `query:name` / `header:name` / `path:name`. */
  pointer: string;
  message: string;
}

export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;
}

export class InvalidSignatureError extends DomainError {
  override readonly name = 'InvalidSignatureError';
  readonly code = 'invalid_signature';
}
export class ExpiredTimestampError extends DomainError {
  override readonly name = 'ExpiredTimestampError';
  readonly code = 'expired_timestamp';
}
export class ReplayedNonceError extends DomainError {
  override readonly name = 'ReplayedNonceError';
  readonly code = 'replay_nonce';
}
export class InsufficientScopeError extends DomainError {
  override readonly name = 'InsufficientScopeError';
  readonly code = 'insufficient_scope';
  readonly requiredScope: string;
  constructor(requiredScope: string) {
    super(`This operation requires the scope ${requiredScope}.`);
    this.requiredScope = requiredScope;
  }
}
export class NotFoundError extends DomainError {
  override readonly name: string = 'NotFoundError';
  readonly code = 'resource_not_found';
}
/** The order exists but has no result: not yet (still processing), or never (it ended cancelled or rejected). */
export class ResultNotAvailableError extends NotFoundError {
  override readonly name = 'ResultNotAvailableError';
  readonly processingState: string;
  readonly resultExpected: boolean;
  constructor(id: string, processingState: string, resultExpected: boolean) {
    super(
      resultExpected
        ? `Order ${id} is ${processingState}: its result exists once it is completed.`
        : `Order ${id} ended ${processingState}: it has no result and will have none.`,
    );
    this.processingState = processingState;
    this.resultExpected = resultExpected;
  }
}
export class MethodNotAllowedError extends DomainError {
  override readonly name = 'MethodNotAllowedError';
  readonly code = 'method_not_allowed';
  readonly allowed: readonly string[];
  constructor(allowed: readonly string[]) {
    super(`Allowed methods: ${allowed.join(', ')}.`);
    this.allowed = allowed;
  }
}
export class IdempotencyConflictError extends DomainError {
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
  }
}
export class StaleVersionError extends DomainError {
  override readonly name = 'StaleVersionError';
  readonly code = 'stale_source_version';
  readonly currentSourceVersion: string;
  constructor(currentSourceVersion: string, detail?: string) {
    super(detail ?? `The stored source_version is ${currentSourceVersion}; send a newer one.`);
    this.currentSourceVersion = currentSourceVersion;
  }
}
export class InvalidTransitionError extends DomainError {
  override readonly name = 'InvalidTransitionError';
  readonly code = 'invalid_state_transition';
}
export class PayloadTooLargeError extends DomainError {
  override readonly name = 'PayloadTooLargeError';
  readonly code = 'payload_too_large';
}
/** A per-tenant maximum the contract documents (such as the number of sales rules) is reached. */
export class LimitReachedError extends DomainError {
  override readonly name = 'LimitReachedError';
  readonly code = 'limit_reached';
}
export class UnsupportedMediaTypeError extends DomainError {
  override readonly name = 'UnsupportedMediaTypeError';
  readonly code = 'unsupported_media_type';
}
export class ValidationError extends DomainError {
  override readonly name = 'ValidationError';
  readonly code = 'validation_failed';
  readonly errors: FieldError[];
  /** How many errors there were; `errors` lists the first of them. */
  readonly total: number;
  constructor(errors: FieldError[], detail = 'The request does not match the schema or its invariants.', total = errors.length) {
    super(detail);
    this.errors = errors;
    this.total = Math.max(total, errors.length);
  }
}
export class RateLimitedError extends DomainError {
  override readonly name = 'RateLimitedError';
  readonly code = 'rate_limited';
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super(`Request rate exceeded for this key; retry after ${retryAfterSeconds} s.`);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
/** AWS stayed busy (throttling, a 5xx, a dropped connection) through the SDK's retries: the partner retries after a moment. */
export class ServiceBusyError extends DomainError {
  override readonly name = 'ServiceBusyError';
  readonly code = 'rate_limited';
  readonly retryAfterSeconds = 1;
  constructor() {
    super('The service is busy; retry the same request (with the same Idempotency-Key) after Retry-After seconds.');
  }
}
export class TenantUnavailableError extends DomainError {
  override readonly name = 'TenantUnavailableError';
  readonly code = 'tenant_unavailable';
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super('This tenant is currently unavailable.');
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
export class NotImplementedError extends DomainError {
  override readonly name = 'NotImplementedError';
  readonly code = 'not_implemented';
}

/**
 * Thrown by a compare-and-set write when another writer changed the item first; the caller
 * re-reads and decides again (see `retryOnRevisionConflict`). Never reaches a partner as such.
 */
export class RevisionConflict extends Error {
  override readonly name = 'RevisionConflict';
}

/** An item meant to be written once (a call attempt, an event) is already there: its write happened before. */
export class AlreadyWrittenError extends Error {
  override readonly name = 'AlreadyWrittenError';
}
