/**
 * Renders any error that reaches the chain as problem+json: a domain error as its problem,
 * anything else as a generic 500 whose details go to the log only.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Route } from '../../api/routes.ts';
import { DomainError } from '../../errors.ts';
import { logger } from '../../logging/logger.ts';
import { renderProblem } from '../problem.ts';
import type { HttpMiddleware } from './types.ts';

export function problemResponse(error: unknown, instance: string, requestId: string): APIGatewayProxyResult {
  const problem = renderProblem(error, instance, requestId);
  return { statusCode: problem.status, headers: problem.headers, body: JSON.stringify(problem.body) };
}

export function problemJson(route: Route): HttpMiddleware {
  return {
    onError: (request) => {
      if (!(request.error instanceof DomainError)) logger.error('unhandled error', request.error as Error);
      const http = request.context.http;
      request.response = problemResponse(request.error, http?.path ?? route.path, http?.requestId ?? request.context.awsRequestId);
    },
  };
}
