/** A Middy chain of the middlewares under test around a handler, configured as the pipeline's, with no AWS anywhere. */
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { HttpContext, HttpMiddleware, HttpState } from '#shared/http/middleware/types.ts';
import { MIDDY_OPTIONS } from '#shared/http/pipeline.ts';

export const lambdaContext = { awsRequestId: 'aws-request-id', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

export function apiEvent(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    httpMethod: 'GET',
    path: '/api/v1/commerce/capabilities',
    headers: {},
    multiValueQueryStringParameters: null,
    pathParameters: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'req-1' },
    ...overrides,
  } as APIGatewayProxyEvent;
}

/** A middleware that sets the HTTP state the earlier middlewares of the pipeline would have set. */
export const withState = (state: Partial<HttpState>): HttpMiddleware => ({
  before: ({ context }) => {
    context.http = {
      startedAt: performance.now(),
      requestId: 'req-1',
      correlationId: 'req-1',
      headers: {},
      path: '/api/v1/commerce/x',
      body: Buffer.alloc(0),
      ...state,
    };
  },
});

export const ok = async (): Promise<APIGatewayProxyResult> => ({ statusCode: 200, headers: {}, body: '{"ok":true}' });

export function chain(
  middlewares: HttpMiddleware[],
  handler: (event: APIGatewayProxyEvent, context: HttpContext) => Promise<APIGatewayProxyResult> = ok,
  context: Context = lambdaContext,
) {
  let m = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>(MIDDY_OPTIONS);
  for (const middleware of middlewares) m = m.use(middleware);
  const run = m.handler(handler);
  return (event: APIGatewayProxyEvent = apiEvent()) => run(event, context as HttpContext);
}
