/**
 * First in the chain: the request's HTTP state (headers, canonical path, raw body), its
 * request and correlation ids in every log line, `X-Request-Id` on every answer, and one
 * "request completed" line with the status, counted by route and status class.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { fillPath, type Route } from '../../api/routes.ts';
import { appendLogKeys, logger } from '../../logging/logger.ts';
import { METRIC, statusClass } from '../../observability/metric-names.ts';
import { countMetric } from '../../observability/metrics.ts';
import type { HttpMiddleware, HttpRequest } from './types.ts';

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const MAX_CLIENT_CHARS = 100;

function lowerCaseHeaders(event: APIGatewayProxyEvent): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) out[name.toLowerCase()] = value ?? undefined;
  return out;
}

export function requestScope(route: Route): HttpMiddleware {
  const finish = (request: HttpRequest) => {
    const requestId = request.context.http?.requestId ?? request.context.awsRequestId;
    if (request.response) request.response.headers = { ...request.response.headers, 'X-Request-Id': requestId };
    logger.info('request completed', {
      status: request.response?.statusCode,
      method: request.event.httpMethod,
      // The route's template, never the path itself: a partner's ids (an order, a customer) can be
      // personal data, and an erasure cannot reach a log. The request and correlation ids find the request.
      path: route.path,
      duration_ms: request.context.http ? Math.round(performance.now() - request.context.http.startedAt) : undefined,
      // The partner's integration as it names itself: which client made a request, for support.
      client: request.context.http?.headers['user-agent']?.slice(0, MAX_CLIENT_CHARS),
    });
    countMetric(METRIC.requests, { route: route.operationId, status_class: statusClass(request.response?.statusCode ?? 500) });
  };
  return {
    before: (request) => {
      const { event } = request;
      const headers = lowerCaseHeaders(event);
      const requestId = event.requestContext?.requestId ?? request.context.awsRequestId;
      const correlation = headers['x-correlation-id'];
      const raw = event.body ?? '';
      request.context.http = {
        startedAt: performance.now(),
        requestId,
        correlationId: correlation && CORRELATION_ID.test(correlation) ? correlation : requestId,
        headers,
        path: fillPath(route, event.pathParameters),
        body: event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8'),
      };
      appendLogKeys({ request_id: requestId, route: route.operationId, correlation_id: request.context.http.correlationId });
    },
    after: finish,
    onError: finish,
  };
}
