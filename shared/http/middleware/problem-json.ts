/**
 * Renders any error that reaches the chain as problem+json: a domain error as its problem, AWS
 * still busy after the SDK's retries (or an order that kept changing) as 429 with Retry-After,
 * anything else as a generic 500
 * whose details go to the log only.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Route } from '../../api/routes.ts';
import { DomainError, RevisionConflict, ServiceBusyError } from '../../errors.ts';
import { isTransientAwsError } from '../../storage/transient.ts';
import { logger } from '../../logging/logger.ts';
import { renderProblem } from '../problem.ts';
import type { HttpMiddleware } from './types.ts';

/** Busy, not broken: AWS still throttling after the SDK's retries, or an order that kept changing under a compare-and-set. */
const isBusy = (error: unknown) => isTransientAwsError(error) || error instanceof RevisionConflict;

export function problemResponse(error: unknown, instance: string, requestId: string): APIGatewayProxyResult {
  const problem = renderProblem(isBusy(error) ? new ServiceBusyError() : error, instance, requestId);
  return { statusCode: problem.status, headers: problem.headers, body: JSON.stringify(problem.body) };
}

export function problemJson(route: Route): HttpMiddleware {
  return {
    onError: (request) => {
      if (isBusy(request.error)) logger.warn('busy through every retry; answered 429', { error: (request.error as Error).name });
      else if (!(request.error instanceof DomainError)) logger.error('unhandled error', request.error as Error);
      const http = request.context.http;
      request.response = problemResponse(request.error, http?.path ?? route.path, http?.requestId ?? request.context.awsRequestId);
    },
  };
}
