/** What the request pipeline's middlewares share: the Middy request with its HTTP state. */
import type middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Principal } from '../../auth/authenticate.ts';

export interface HttpState {
  /** performance.now() when the request reached the function. */
  startedAt: number;
  requestId: string;
  correlationId: string;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** Canonical request path: BASE_PATH plus the route path, parameters percent-encoded. */
  path: string;
  body: Buffer;
  principal?: Principal;
  /** A stored answer to replay instead of running the handler (see `idempotency.ts`). */
  replay?: APIGatewayProxyResult;
  /** What the idempotency record keeps instead of the answer, when the answer holds a secret shown once. */
  replayAnswer?: APIGatewayProxyResult;
  /** The validated input, or why it was refused (see `validation.ts`). */
  input?: { ok: true; value: ValidatedInput } | { ok: false; error: unknown };
}

export interface ValidatedInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

export type HttpContext = Context & { http: HttpState };
export type HttpRequest = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;
export type HttpMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;
