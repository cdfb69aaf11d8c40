/**
 * Which AWS errors are passing conditions rather than faults of the request: throttling, a
 * service-side 5xx, or a connection lost on the way. The SDK retries them; one that outlasts
 * its retries is answered as "busy, retry" instead of an internal error.
 */
const TRANSIENT_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionConflictException',
  'TimeoutError',
]);
const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);
/** A transaction refused only for these reasons would pass if tried again (another transaction held an item, throttling). */
const TRANSIENT_CANCELLATIONS = new Set(['None', 'TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

/** A transaction cancelled because another one was busy with its items, not because a condition failed. */
export function isTransactionConflict(error: unknown): boolean {
  const reasons = (error as { name?: string; CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (
    (error as { name?: string }).name === 'TransactionCanceledException' &&
    Array.isArray(reasons) &&
    reasons.some((r) => r.Code !== 'None') &&
    reasons.every((r) => TRANSIENT_CANCELLATIONS.has(r.Code ?? 'None'))
  );
}

export function isTransientAwsError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const e = error as Error & { code?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode ?? 0;
  return TRANSIENT_NAMES.has(e.name) || TRANSIENT_CODES.has(e.code ?? '') || status === 429 || status >= 500 || isTransactionConflict(error);
}

/** Delays between the SDK's attempts: short, so a request that meets throttling still answers within the API's 10 s. */
export const retryDelayMs = (attempt: number) => Math.min(1_000, 50 * 2 ** attempt);
