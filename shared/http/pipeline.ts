/**
 * The request pipeline every HTTP function runs, as one Middy chain. In order:
 * request scope (request id, log keys, X-Request-Id) → problem+json rendering of any error →
 * limits (2 MiB, media type) → HMAC authorizer (signature, timestamp, nonce) → scope →
 * tenant status and rate limit → [idempotency for mutations → input validation → handler].
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { BASE_PATH, isMutation, routeById, type Route } from '#functions/routes.ts';
import { authenticate, type Principal } from '../auth/authenticate.ts';
import { takeRateToken, tableAuthPorts, tenantConfigOf } from '../auth/dynamodb-adapters.ts';
import { appendLogKeys, logger, withLogScope } from '../logging/logger.ts';
import {
  InsufficientScopeError,
  PayloadTooLargeError,
  ProblemError,
  RateLimitedError,
  TenantUnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../errors.ts';
import { requireIdempotencyKey, runIdempotent } from './idempotency.ts';
import type { OperationContract, OperationInput, OperationResult } from './operation.ts';
import { renderProblem } from './problem.ts';
import { parseOrThrow } from './validation.ts';

import { MAX_BODY_BYTES } from './limits.ts';
import { runtimeConfig } from '../config/runtime.ts';
import { withCapacityScope } from '../storage/capacity-meter.ts';
export const TENANT_UNAVAILABLE_RETRY_AFTER_SECONDS = 300;

export interface HttpState {
  requestId: string;
  correlationId: string;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** Canonical request path: BASE_PATH plus the route path, parameters percent-encoded. */
  path: string;
  body: Buffer;
  principal?: Principal;
}

type HttpContext = Context & { http: HttpState };
type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;
type Middleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function canonicalPath(route: Route, pathParameters: APIGatewayProxyEvent['pathParameters']): string {
  return BASE_PATH + route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathParameters?.[name] ?? ''));
}

function lowerCaseHeaders(event: APIGatewayProxyEvent): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) out[name.toLowerCase()] = value ?? undefined;
  return out;
}

const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode: status,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const problemResponse = (error: unknown, state: HttpState): APIGatewayProxyResult => {
  const problem = renderProblem(error, state.path, state.requestId);
  return { statusCode: problem.status, headers: problem.headers, body: JSON.stringify(problem.body) };
};

function requestScope(route: Route): Middleware {
  const finish = (request: Request) => {
    const { http } = request.context;
    if (request.response) request.response.headers = { ...request.response.headers, 'X-Request-Id': http.requestId };
    logger.info('request completed', { status: request.response?.statusCode });
  };
  return {
    before: (request) => {
      const event = request.event;
      const headers = lowerCaseHeaders(event);
      const requestId = event.requestContext?.requestId ?? request.context.awsRequestId;
      const correlation = headers['x-correlation-id'];
      const raw = event.body ?? '';
      request.context.http = {
        requestId,
        correlationId: correlation && CORRELATION_ID.test(correlation) ? correlation : requestId,
        headers,
        path: canonicalPath(route, event.pathParameters),
        body: event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8'),
      };
      appendLogKeys({ request_id: requestId, route: route.operationId, correlation_id: request.context.http.correlationId });
    },
    after: finish,
    onError: (request) => {
      const { http } = request.context;
      if (!(request.error instanceof ProblemError)) {
        logger.error('unhandled error', request.error as Error);
      }
      request.response = problemResponse(request.error, http ?? { requestId: request.context.awsRequestId, path: route.path });
      finish(request);
    },
  };
}

const requestLimits: Middleware = {
  before: ({ context: { http } }) => {
    if (http.body.length > MAX_BODY_BYTES) {
      throw new PayloadTooLargeError(`The request body exceeds ${MAX_BODY_BYTES} bytes; split large imports.`);
    }
    const mediaType = http.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (http.body.length > 0 && mediaType !== 'application/json') {
      throw new UnsupportedMediaTypeError('A request with a body must have Content-Type: application/json.');
    }
  },
};

/** The "HMAC authorizer" of contract-decisions section 1, inside the function (it needs the body). */
function hmacAuthorizer(ports = tableAuthPorts()): Middleware {
  return {
    before: async ({ event, context: { http } }) => {
      http.principal = await authenticate(
        { method: event.httpMethod, path: http.path, query: event.multiValueQueryStringParameters, headers: http.headers, body: http.body },
        ports,
      );
      appendLogKeys({ tenant: http.principal.tenant });
    },
  };
}

const requireScope = (route: Route): Middleware => ({
  before: ({ context: { http } }) => {
    if (!http.principal!.scopes.includes(route.scope)) throw new InsufficientScopeError(route.scope);
  },
});

const tenantGate: Middleware = {
  before: async ({ context: { http } }) => {
    const principal = http.principal!;
    const tenant = await tenantConfigOf(principal.tenant);
    if (tenant.status === 'suspended') throw new TenantUnavailableError(TENANT_UNAVAILABLE_RETRY_AFTER_SECONDS);
    const wait = await takeRateToken(principal, tenant.rate_limit, new Date());
    if (wait > 0) throw new RateLimitedError(wait);
  },
};

function singleValuedQuery(event: APIGatewayProxyEvent): Record<string, string> {
  const out: Record<string, string> = {};
  const repeated: string[] = [];
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if ((values?.length ?? 0) > 1) repeated.push(name);
    if (values?.[0] !== undefined) out[name] = values[0];
  }
  if (repeated.length) throw new ValidationError(repeated.map((name) => ({ pointer: `query:${name}`, message: 'must appear at most once' })));
  return out;
}

function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ValidationError([{ pointer: '', message: 'the body is not valid JSON' }]);
  }
}

/**
 * Wraps an operation's handler in the request pipeline.
 * @example export const handler = httpHandler(contract, async ({ principal }) => ({ status: 200, body: {...} }));
 */
export function httpHandler<C extends OperationContract>(contract: C, impl: (input: OperationInput<C>) => Promise<OperationResult>) {
  const route = routeById(contract.operationId);

  const execute = async (event: APIGatewayProxyEvent, http: HttpState): Promise<APIGatewayProxyResult> => {
    const input = {
      params: contract.params ? parseOrThrow(contract.params, event.pathParameters ?? {}, 'path') : undefined,
      query: contract.query ? parseOrThrow(contract.query, singleValuedQuery(event), 'query') : undefined,
      body: (contract.bodyEnvelope ?? contract.body) ? parseOrThrow((contract.bodyEnvelope ?? contract.body)!, parseJsonBody(http.body), 'body') : undefined,
      principal: http.principal!,
      requestId: http.requestId,
      correlationId: http.correlationId,
      now: new Date(),
    } as OperationInput<C>;
    const result = await impl(input);
    return jsonResponse(result.status, result.body, result.headers);
  };

  /** Known errors become stored responses; anything else propagates as a 5xx. */
  const executeRendered = async (event: APIGatewayProxyEvent, http: HttpState) => {
    try {
      return await execute(event, http);
    } catch (error) {
      if (error instanceof ProblemError) return problemResponse(error, http);
      throw error;
    }
  };

  const core = async (event: APIGatewayProxyEvent, context: HttpContext): Promise<APIGatewayProxyResult> => {
    const { http } = context;
    if (!isMutation(route.method)) return executeRendered(event, http);
    const idempotencyKey = requireIdempotencyKey(http.headers['idempotency-key']);
    return runIdempotent(
      {
        tenant: http.principal!.tenant,
        idempotency_key: idempotencyKey,
        method: route.method,
        path: http.path,
        body_sha256: http.headers['x-svc-content-sha256']!,
      },
      context,
      () => executeRendered(event, http),
    );
  };

  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>()
    .use(requestScope(route))
    .use(requestLimits)
    .use(hmacAuthorizer())
    .use(requireScope(route))
    .use(tenantGate)
    .handler(core);
  const run = (event: APIGatewayProxyEvent, context: Context) => withLogScope(() => chain(event, context as HttpContext));
  // Benchmarks only: what this request consumed, for the cost model (never set in production).
  // Read when called (the configuration is parsed once), not at import: `npm run contract` loads handlers without an environment.
  return async (event: APIGatewayProxyEvent, context: Context) => {
    if (!runtimeConfig().costMetering) return run(event, context);
    const { result, capacity } = await withCapacityScope(() => run(event, context));
    result.headers = { ...result.headers, 'X-Bench-Capacity': JSON.stringify(capacity) };
    return result;
  };
}
