/**
 * Renders any error that reaches the chain as problem+json: a domain error as its problem, AWS
 * still busy after the SDK's retries (or an order that kept changing) as 429 with Retry-After,
 * anything else as a generic 500
 * whose details go to the log only.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Route } from '../../api/routes.ts';
import { DomainError, PayloadTooLargeError, RevisionConflict, ServiceBusyError } from '../../errors.ts';
import { logger } from '../../logging/logger.ts';
import { isTransientAwsError } from '../../storage/transient.ts';
import { renderProblem } from '../problem.ts';
import type { HttpMiddleware } from './types.ts';

/** Busy, not broken: AWS still throttling after the SDK's retries, or an order that kept changing under a compare-and-set. */
const isBusy = (error: unknown) => isTransientAwsError(error) || error instanceof RevisionConflict;

/**
 * DynamoDB refusing what a request asked it to store (an item over 400 KB, a key over its size)
 * is the request's size, not the service's failure. The contract's bounds are meant to keep
 * every request below these; this is the net beneath them, never a 500 a retry repeats.
 */
function storageLimitOf(error: unknown): DomainError | undefined {
  if ((error as { name?: unknown })?.name !== 'ValidationException') return undefined;
  const message = String((error as Error).message);
  if (/item size|has exceeded the maximum allowed size|size of hashkey|size of rangekey|size limit of \d+ bytes/i.test(message)) {
    return new PayloadTooLargeError('What this request would store is larger than the service can keep; send fewer or shorter values.');
  }
  return undefined;
}

export function problemResponse(error: unknown, instance: string, requestId: string, referenceUrl?: string): APIGatewayProxyResult {
  const problem = renderProblem(isBusy(error) ? new ServiceBusyError() : (storageLimitOf(error) ?? error), instance, requestId, referenceUrl);
  return { statusCode: problem.status, headers: problem.headers, body: JSON.stringify(problem.body) };
}

export function problemJson(route: Route, referenceUrl?: string): HttpMiddleware {
  return {
    onError: (request) => {
      if (isBusy(request.error)) logger.warn('busy through every retry; answered 429', { error: (request.error as Error).name });
      else if (storageLimitOf(request.error)) logger.warn('a request asked to store more than DynamoDB keeps; answered 413', { error: 'ValidationException' });
      else if (!(request.error instanceof DomainError)) logger.error('unhandled error', request.error as Error);
      const http = request.context.http;
      request.response = problemResponse(request.error, http?.path ?? route.path, http?.requestId ?? request.context.awsRequestId, referenceUrl);
    },
  };
}
