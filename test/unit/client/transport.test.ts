/**
 * The partner client against a scripted server on 127.0.0.1: what it signs, what it retries
 * and how long it waits, how it walks pages, and the one error it raises.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientOptions, CommerceApiError, createCommerceClient } from '#client/index.ts';
import { sha256Hex, signatureHeader } from '#client/signing.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
type Answer = (seen: Seen, res: ServerResponse) => void;

let script: Answer[] = [];
const seen: Seen[] = [];
let origin = '';
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const request = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
    seen.push(request);
    const answer = script.shift() ?? json(200, {});
    answer(request, res);
  });
});

function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return (_, res) => res.writeHead(status, { 'Content-Type': 'application/json', 'X-Request-Id': `req-${seen.length}`, ...headers }).end(JSON.stringify(body));
}
const problem = (status: number, code: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Answer =>
  json(
    status,
    {
      type: `urn:commerce-interface:problem:${code}`,
      title: code,
      status,
      code,
      detail: `${code} happened`,
      instance: '/x',
      request_id: `req-${seen.length}`,
      ...extra,
    },
    headers,
  );
const reset: Answer = (_, res) => res.socket?.destroy();
const silent: Answer = () => undefined;

const credentials = { keyId: 'key_test_1', secret: 'test-secret-5b1f0c9e2d7a4e3f8a6b' };
const client = (options: Partial<ClientOptions> = {}) =>
  createCommerceClient({ baseUrl: `${origin}/api/v1/commerce`, ...credentials, random: () => 0, retry: { baseDelayMs: 1 }, ...options });

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});
const fresh = (answers: Answer[]) => {
  script = answers;
  seen.length = 0;
};

/** What the service computes from the request it received. */
function expectedSignature(request: Seen): string {
  const url = new URL(request.url, origin);
  const query: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) query[name] = [...(query[name] ?? []), value];
  return signatureHeader(credentials.secret, {
    method: request.method,
    path: url.pathname,
    query,
    keyId: String(request.headers['x-svc-key-id']),
    timestamp: String(request.headers['x-svc-timestamp']),
    nonce: String(request.headers['x-svc-nonce']),
    contentSha256: sha256Hex(request.body),
  });
}

describe('the partner client', () => {
  it('signs every request: path parameters encoded, query canonical, body hashed', async () => {
    fresh([json(200, { data: [], next_cursor: null }), json(201, { outcome: 'created' })]);
    await client().products.listPage({ q: 'blue shirt ü', limit: 5, category: 'apparel/shirts' });
    await client().customers.put('gid://shopify/Customer/1 ü', { locale: 'de-DE' } as never);
    expect(seen[1]!.url).toBe('/api/v1/commerce/customers/gid%3A%2F%2Fshopify%2FCustomer%2F1%20%C3%BC');
    for (const request of seen) {
      expect(request.headers['x-svc-signature']).toBe(expectedSignature(request));
      expect(request.headers['x-svc-content-sha256']).toBe(sha256Hex(request.body));
    }
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
    expect(seen[1]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never sends a "." or ".." id, which every URL parser would resolve into another resource', async () => {
    fresh([]);
    for (const id of ['.', '..']) {
      const error = await client()
        .orders.result(id)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CommerceApiError);
      expect(error).toMatchObject({ status: 404, code: 'resource_not_found' });
    }
    await client().orders.result('...');
    expect(seen.map((s) => s.url)).toEqual(['/api/v1/commerce/orders/.../result']);
  });

  it('retries 429, 503, other 5xx and a dropped connection with one Idempotency-Key and a new nonce each time, then succeeds', async () => {
    fresh([problem(429, 'rate_limited'), problem(503, 'tenant_unavailable'), reset, problem(500, 'internal_error'), json(201, { outcome: 'created' })]);
    const answer = await client({ retry: { maxAttempts: 5, baseDelayMs: 1 } }).orders.create({} as never);
    expect(answer).toEqual({ outcome: 'created' });
    expect(seen).toHaveLength(5);
    expect(new Set(seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(new Set(seen.map((s) => s.headers['x-svc-nonce'])).size).toBe(5);
    for (const request of seen) expect(request.headers['x-svc-signature']).toBe(expectedSignature(request));
  });

  it('gives each logical call its own Idempotency-Key, or the caller’s', async () => {
    fresh([json(201, {}), json(201, {}), json(201, {})]);
    await client().orders.create({} as never);
    await client().orders.create({} as never);
    await client().orders.create({} as never, { idempotencyKey: 'order-42-create' });
    expect(seen.map((s) => s.headers['idempotency-key'])[2]).toBe('order-42-create');
    expect(seen[0]!.headers['idempotency-key']).not.toBe(seen[1]!.headers['idempotency-key']);
  });

  it('waits what Retry-After says before the next attempt', async () => {
    fresh([problem(429, 'rate_limited', {}, { 'Retry-After': '1' }), json(200, { contract_version: 'x' })]);
    const started = Date.now();
    await client().capabilities.get();
    expect(seen).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('retries a 409 that carries Retry-After (the same key still running), but not another 409 or a 4xx', async () => {
    fresh([problem(409, 'idempotency_key_reused', { reason: 'in_progress' }, { 'Retry-After': '0' }), json(200, { outcome: 'updated' })]);
    expect(await client().orders.update('o-1', {} as never)).toEqual({ outcome: 'updated' });
    fresh([problem(409, 'stale_source_version', { current_source_version: '7' })]);
    await expect(client().orders.update('o-1', {} as never)).rejects.toMatchObject({ status: 409, code: 'stale_source_version' });
    expect(seen).toHaveLength(1);
  });

  it('raises one error class with the code, status, field pointers and request id, without retrying a 422', async () => {
    const errors = [{ pointer: '/items/0/price', message: 'must be a decimal string' }];
    fresh([problem(422, 'validation_failed', { errors })]);
    const error = await client()
      .orders.create({} as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommerceApiError);
    expect(error).toMatchObject({ status: 422, code: 'validation_failed', errors, requestId: 'req-1' });
    expect(seen).toHaveLength(1);
  });

  it('stops at its attempt bound and its time bound', async () => {
    fresh(Array.from({ length: 10 }, () => problem(503, 'tenant_unavailable')));
    await expect(client({ retry: { maxAttempts: 3, baseDelayMs: 1 } }).capabilities.get()).rejects.toMatchObject({ status: 503, code: 'tenant_unavailable' });
    expect(seen).toHaveLength(3);
    fresh(Array.from({ length: 10 }, () => problem(503, 'tenant_unavailable', {}, { 'Retry-After': '5' })));
    await expect(client({ retry: { maxAttempts: 10, maxElapsedMs: 2000 } }).capabilities.get()).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(1);
  });

  it('times an attempt out, retries it, and reports a time-out when none answers', async () => {
    fresh([silent, silent]);
    const error = await client({ timeoutMs: 300, retry: { maxAttempts: 2, baseDelayMs: 1 } })
      .capabilities.get()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'CommerceApiError', status: 0, code: 'timeout' });
    expect(seen).toHaveLength(2);
  });

  it('walks a list page by page as an async iterator, keeping the filters', async () => {
    fresh([
      json(200, { data: [{ external_order_id: 'a' }, { external_order_id: 'b' }], next_cursor: 'c1' }),
      json(200, { data: [{ external_order_id: 'c' }], next_cursor: 'c2' }),
      json(200, { data: [{ external_order_id: 'd' }], next_cursor: null }),
    ]);
    const ids: string[] = [];
    for await (const order of client().orders.list({ processing_state: 'completed', limit: 2 })) ids.push(order.external_order_id);
    expect(ids).toEqual(['a', 'b', 'c', 'd']);
    expect(seen.map((s) => new URL(s.url, origin).searchParams.toString())).toEqual([
      'processing_state=completed&limit=2',
      'processing_state=completed&limit=2&cursor=c1',
      'processing_state=completed&limit=2&cursor=c2',
    ]);
  });
});
