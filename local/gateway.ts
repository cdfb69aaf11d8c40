/**
 * The local API Gateway: turns each HTTP request into an API Gateway REST proxy event and
 * invokes the route's own function (its thread, function-hosts.ts) under its timeout.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { OPENAPI_FILE, renderCommittedReference } from '#contract/docs.ts';
import { ROUTES } from '#functions/routes.ts';
import { BASE_PATH, pathPattern, type Route } from '#shared/api/routes.ts';
import { parseQueryString } from '#shared/auth/signing.ts';
import { MethodNotAllowedError } from '#shared/errors.ts';
import { gatewayProblem, gatewayProblemBody, gatewayStatus } from '#shared/http/gateway-responses.ts';
import { renderProblem } from '#shared/http/problem.ts';
import type { Deployment } from './deployment.ts';

/** API Gateway REST's own payload limit; larger requests never reach a function. */
export const GATEWAY_MAX_BYTES = 10 * 1024 * 1024;
/**
 * Lambda's synchronous invocation limits: an event larger than this is refused before the
 * function runs (API Gateway answers 413), an answer larger than this is an invocation error
 * (API Gateway answers with its 5XX response).
 */
export const LAMBDA_MAX_REQUEST_BYTES = 6 * 1024 * 1024;
export const LAMBDA_MAX_RESPONSE_BYTES = 6 * 1024 * 1024 + 100;

/** Invokes a deployed function with an event (function-hosts.ts). */
export type InvokeFunction = (functionName: string, event: unknown, options?: { metered?: boolean }) => Promise<unknown>;

interface Match {
  route?: Route;
  params: Record<string, string>;
  allowed: string[];
}

function decodeParams(groups: Record<string, string>): Record<string, string> | undefined {
  try {
    return Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, decodeURIComponent(v)]));
  } catch {
    return undefined;
  }
}

function matchRoute(method: string, relativePath: string): Match {
  const allowed: string[] = [];
  for (const route of ROUTES) {
    const m = pathPattern(route.path).exec(relativePath);
    if (!m) continue;
    allowed.push(route.method);
    if (route.method === method) {
      const params = decodeParams(m.groups ?? {});
      // A path segment that is not valid percent-encoding names nothing (API Gateway answers it with a 4xx, never a 5xx).
      return params ? { route, params, allowed } : { params: {}, allowed: [] };
    }
  }
  return { params: {}, allowed };
}

/**
 * The request's body, or `too_large` as soon as it passes API Gateway's limit. The rest is
 * left to Node, which reads and discards it once the answer is sent: leaving a loop over the
 * request early would destroy its socket, and the client would get no answer at all.
 */
function readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= GATEWAY_MAX_BYTES) return void chunks.push(chunk);
      req.off('data', onData);
      resolve('too_large');
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
    // A client gone before its body ended is answered by no one (the promise settles all the same).
    req.once('close', () => reject(new Error('the client closed the connection before its body ended')));
  });
}

function send(res: ServerResponse, result: APIGatewayProxyResult): void {
  // A client that went away must never take the runtime down with an unhandled EPIPE.
  res.on('error', () => undefined);
  if (res.destroyed) return;
  res.writeHead(result.statusCode, result.headers as Record<string, string>);
  res.end(result.body);
}

function gatewayResponse(responseType: string, requestId: string, path: string): APIGatewayProxyResult {
  const problem = gatewayProblem(responseType);
  return {
    statusCode: gatewayStatus(problem),
    headers: {
      'Content-Type': 'application/problem+json',
      'X-Request-Id': requestId,
      ...(problem.retryAfterSeconds ? { 'Retry-After': String(problem.retryAfterSeconds) } : {}),
    },
    body: gatewayProblemBody(problem, requestId, path, process.env.REFERENCE_URL),
  };
}

function toEvent(
  req: IncomingMessage,
  route: Route,
  params: Record<string, string>,
  path: string,
  rawQuery: string,
  body: Buffer,
  requestId: string,
): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    headers[name] = value;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  const multiValueQuery = parseQueryString(rawQuery) as Record<string, string[]>;
  const hasQuery = Object.keys(multiValueQuery).length > 0;
  const hasParams = Object.keys(params).length > 0;
  return {
    resource: BASE_PATH + route.path,
    path,
    httpMethod: route.method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? Object.fromEntries(Object.entries(multiValueQuery).map(([k, v]) => [k, v.at(-1)!])) : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters: hasParams ? params : null,
    stageVariables: null,
    body: body.length ? body.toString('utf8') : null,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      resourcePath: BASE_PATH + route.path,
      httpMethod: route.method,
      path,
      stage: 'local',
      accountId: '000000000000',
      apiId: 'local',
      protocol: 'HTTP/1.1',
      requestTimeEpoch: Date.now(),
      resourceId: route.operationId,
      authorizer: null,
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' } as APIGatewayProxyEvent['requestContext']['identity'],
    },
  };
}

/**
 * The API reference and its contract, outside the signed base path: the page rendered once per
 * address it is asked on, so its snippets call the server that serves it.
 */
const referencePages = new Map<string, string>();
const reference = (origin: string) => {
  if (!referencePages.has(origin)) referencePages.set(origin, renderCommittedReference(origin));
  return referencePages.get(origin)!;
};
const DOCS: Record<string, (origin: string) => { type: string; body: string }> = {
  '/docs': (origin) => ({ type: 'text/html; charset=utf-8', body: reference(origin) }),
  '/docs/openapi.json': () => ({ type: 'application/json', body: readFileSync(OPENAPI_FILE, 'utf8') }),
};

function sendDocument(res: ServerResponse, method: string, document: { type: string; body: string }): void {
  res.writeHead(200, { 'Content-Type': document.type, 'Content-Length': Buffer.byteLength(document.body), 'Cache-Control': 'no-cache' });
  res.end(method === 'HEAD' ? undefined : document.body);
}

async function handle(req: IncomingMessage, res: ServerResponse, deployment: Deployment, options: GatewayOptions): Promise<void> {
  const requestId = randomUUID();
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  const method = (req.method ?? 'GET').toUpperCase();

  if ((method === 'GET' || method === 'HEAD') && DOCS[path]) return sendDocument(res, method, DOCS[path](`http://127.0.0.1:${req.socket.localPort}`));
  // Someone who opens the local address in a browser lands on the reference (a local courtesy: the deployed API has no root page).
  if ((method === 'GET' || method === 'HEAD') && path === '/') {
    res.writeHead(302, { Location: '/docs', 'Content-Length': 0 });
    return void res.end();
  }

  const body = await readBody(req);
  if (body === 'too_large') return send(res, gatewayResponse('REQUEST_TOO_LARGE', requestId, path));
  if (!path.startsWith(`${BASE_PATH}/`)) return send(res, gatewayResponse('MISSING_AUTHENTICATION_TOKEN', requestId, path));

  const { route, params, allowed } = matchRoute(method, path.slice(BASE_PATH.length));
  if (!route) {
    if (allowed.length === 0) return send(res, gatewayResponse('MISSING_AUTHENTICATION_TOKEN', requestId, path));
    const problem = renderProblem(new MethodNotAllowedError(allowed), path, requestId, process.env.REFERENCE_URL);
    return send(res, { statusCode: problem.status, headers: { ...problem.headers, 'X-Request-Id': requestId }, body: JSON.stringify(problem.body) });
  }

  const event = toEvent(req, route, params, path, rawQuery, body, requestId);
  if (Buffer.byteLength(JSON.stringify(event)) > LAMBDA_MAX_REQUEST_BYTES) return send(res, gatewayResponse('REQUEST_TOO_LARGE', requestId, path));
  const integrationTimeoutSeconds = deployment.integrationTimeoutSeconds.get(route.operationId) ?? 29;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), integrationTimeoutSeconds * 1000);
  });
  try {
    // Bench runs only (COST_METERING): the invocation's own DynamoDB units come back in X-Bench-Capacity.
    const invocation = options.invoke(route.operationId, event, { metered: options.costMetering }) as Promise<APIGatewayProxyResult>;
    invocation.catch(() => undefined);
    const result = await Promise.race([invocation, timeout]);
    if (result === 'timeout') return send(res, gatewayResponse('INTEGRATION_TIMEOUT', requestId, path));
    if (Buffer.byteLength(JSON.stringify(result)) > LAMBDA_MAX_RESPONSE_BYTES) return send(res, gatewayResponse('DEFAULT_5XX', requestId, path));
    send(res, result);
  } catch {
    // The function threw or ran past its timeout: Lambda reports an invocation error.
    send(res, gatewayResponse('DEFAULT_5XX', requestId, path));
  } finally {
    clearTimeout(timer);
  }
}

interface GatewayOptions {
  invoke: InvokeFunction;
  costMetering: boolean;
}

export function startGateway(
  port: number,
  deployment: Deployment,
  options: { host?: string; costMetering?: boolean; invoke: InvokeFunction },
): Promise<Server> {
  const { host = '127.0.0.1', costMetering = false, invoke } = options;
  const server = createServer((req, res) => {
    handle(req, res, deployment, { invoke, costMetering }).catch(() => {
      if (!res.headersSent) send(res, gatewayResponse('DEFAULT_5XX', randomUUID(), req.url ?? '/'));
    });
  });
  server.keepAliveTimeout = 65_000;
  // Malformed HTTP or a reset connection: answer 400 where a socket is left, never crash.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
