/**
 * The request pipeline every HTTP function runs, as one Middy chain whose order reads here:
 * request scope → problem+json → limits → HMAC authorizer → scope → tenant gate and rate
 * limit → idempotency (mutations, given by their composition root) → validation → handler.
 * Each middleware is one file in `middleware/`; this module only composes them for a route
 * with the ports it is given.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { HttpMethod, Route } from '../api/routes.ts';
import type { AuthPorts } from '../auth/authenticate.ts';
import { DomainError } from '../errors.ts';
import { withLogScope } from '../logging/logger.ts';
import { hmacAuthorizer } from './middleware/hmac-authorizer.ts';
import { problemJson, problemResponse } from './middleware/problem-json.ts';
import { requestLimits } from './middleware/request-limits.ts';
import { requestScope } from './middleware/request-scope.ts';
import { requireScope } from './middleware/require-scope.ts';
import { type TenantGatePorts, tenantGate } from './middleware/tenant-gate.ts';
import type { HttpContext, HttpMiddleware } from './middleware/types.ts';
import { validation } from './middleware/validation.ts';
import type { OperationContract, OperationInput, OperationResult } from './operation.ts';

/**
 * No early answer at the deadline (Middy's default answers 5 ms before it while the handler
 * keeps running, and the idempotency claim would be released under work still being done):
 * a mutation runs to its end and its answer is kept. Should Lambda end it at its timeout, the
 * gateway answers 504 and the claim stays in progress until that deadline, and a rerun under
 * the same key recognises work that committed (the writes are versioned or keyed by it).
 */
export const MIDDY_OPTIONS = { timeoutEarlyInMillis: 0 } as const;

/** What the pipeline needs from outside: built once per function by its composition root. */
export interface PipelinePorts {
  auth: AuthPorts;
  tenants: TenantGatePorts;
  /**
   * Mutations only: their idempotency middleware. A read's composition root leaves it out, so
   * a read's bundle never holds (nor evaluates at every cold start) Powertools' idempotency.
   */
  idempotency?: (method: HttpMethod) => HttpMiddleware;
  /** The API reference page, when the deployment names it: each problem then links its code's entry (`doc_url`). */
  referenceUrl?: string | undefined;
}

const jsonResponse = (result: OperationResult, body: unknown = result.body): APIGatewayProxyResult => ({
  statusCode: result.status,
  headers: { 'Content-Type': 'application/json', ...result.headers },
  body: JSON.stringify(body),
});

/** Runs the operation on the validated input; a domain error becomes its problem answer (so it can be stored). */
function operationHandler<C extends OperationContract>(impl: (input: OperationInput<C>) => Promise<OperationResult>, referenceUrl: string | undefined) {
  return async (_event: APIGatewayProxyEvent, { http }: HttpContext): Promise<APIGatewayProxyResult> => {
    if (http.replay) return http.replay;
    try {
      if (!http.input?.ok) throw http.input?.error;
      const { params, query, body } = http.input.value;
      const idempotencyKey = http.headers['idempotency-key'];
      const input = {
        params,
        query,
        body,
        principal: http.principal!,
        requestId: http.requestId,
        correlationId: http.correlationId,
        idempotencyKey,
        now: new Date(),
      };
      const result = await impl(input as OperationInput<C>);
      if (result.replayBody !== undefined) http.replayAnswer = jsonResponse(result, result.replayBody);
      return jsonResponse(result);
    } catch (error) {
      if (error instanceof DomainError) return problemResponse(error, http.path, http.requestId, referenceUrl);
      throw error;
    }
  };
}

/**
 * Wraps an operation's handler in the request pipeline for its route.
 * @example export const handler = httpHandler(route, ports, contract, async ({ principal }) => ({ status: 200, body: {...} }));
 */
export function httpHandler<C extends OperationContract>(
  route: Route,
  ports: PipelinePorts,
  contract: C,
  impl: (input: OperationInput<C>) => Promise<OperationResult>,
) {
  const mutation = route.method !== 'GET';
  if (mutation !== Boolean(ports.idempotency)) {
    throw new Error(`${route.operationId} is a ${route.method}: ${mutation ? 'a mutation needs its idempotency' : 'a read takes no idempotency'}`);
  }
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>(MIDDY_OPTIONS)
    .use(requestScope(route))
    .use(problemJson(route, ports.referenceUrl))
    .use(requestLimits)
    .use(hmacAuthorizer(ports.auth))
    .use(requireScope(route))
    .use(tenantGate(ports.tenants));
  if (ports.idempotency) chain.use(ports.idempotency(route.method));
  chain.use(validation(contract)).handler(operationHandler(impl, ports.referenceUrl));
  return (event: APIGatewayProxyEvent, context: Context) => withLogScope(() => chain(event, context as HttpContext));
}
