/**
 * Renders any error that reaches the chain as problem+json: a domain error as its problem, AWS
 * still busy after the SDK's retries as 429 with Retry-After, anything else as a generic 500
 * whose details go to the log only.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Route } from '../../api/routes.ts';
import { DomainError, ServiceBusyError } from '../../errors.ts';
import { isTransientAwsError } from '../../storage/transient.ts';
import { logger } from '../../logging/logger.ts';
import { renderProblem } from '../problem.ts';
import type { HttpMiddleware } from './types.ts';

export function problemResponse(error: unknown, instance: string, requestId: string): APIGatewayProxyResult {
  const problem = renderProblem(isTransientAwsError(error) ? new ServiceBusyError() : error, instance, requestId);
  return { statusCode: problem.status, headers: problem.headers, body: JSON.stringify(problem.body) };
}

export function problemJson(route: Route): HttpMiddleware {
  return {
    onError: (request) => {
      if (isTransientAwsError(request.error)) logger.warn('AWS stayed busy through the SDK retries; answered 429', { error: (request.error as Error).name });
      else if (!(request.error instanceof DomainError)) logger.error('unhandled error', request.error as Error);
      const http = request.context.http;
      request.response = problemResponse(request.error, http?.path ?? route.path, http?.requestId ?? request.context.awsRequestId);
    },
  };
}
