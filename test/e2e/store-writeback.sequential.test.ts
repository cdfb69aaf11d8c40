/**
 * Write-back to the partner's own store, end to end on a runtime of its own (its retries a few
 * seconds apart instead of minutes): each result a customer decided is POSTed to the tenant's
 * endpoint, signed as webhooks are, with one Idempotency-Key for all its attempts. 5xx answers
 * are retried until one is taken, and it is written once; 409 counts as written; any other 4xx
 * ends in one `commerce.writeback.failed.v1` with the store's reason; retries stop at their
 * bound; an address the checks refuse is never called.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BenchKey, send } from '#bench/lib/client.ts';
import { verifyWebhook } from '#client/webhooks.ts';
import { type LocalStack, startLocalStack } from '#local/stack.ts';
import { eventually } from '../support/eventually.ts';
import { CALL_NOW_CONFIG, customerBody, ORDER_TENANT_CATALOG, orderBody } from '../support/order-fixtures.ts';
import { ownOrderTenant } from '../support/own-tenant.ts';

interface StoreRequest {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A store endpoint answering each request with the status `script` gives for its number (per order), recording every request. */
async function startStore(script: (order: string, n: number) => number) {
  const requests: StoreRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const order = (JSON.parse(body) as { external_order_id: string }).external_order_id;
      const status = script(order, requests.filter((r) => JSON.parse(r.body).external_order_id === order).length + 1);
      requests.push({ headers: req.headers, body, status });
      res.writeHead(status, { 'Content-Type': 'application/problem+json' });
      res.end(status >= 400 ? JSON.stringify({ title: 'Order is archived', detail: 'order\nlocked by fulfilment' }) : '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/commerce/results`,
    requests,
    of: (order: string) => requests.filter((r) => JSON.parse(r.body).external_order_id === order),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** How each test order's store answers: by the order id's prefix. */
const SCRIPT = (order: string, n: number): number => {
  if (order.startsWith('flaky')) return n <= 2 ? 503 : 200;
  if (order.startsWith('dup')) return 409;
  if (order.startsWith('refused')) return 422;
  if (order.startsWith('down')) return 500;
  return 200;
};

let stack: LocalStack;
let store: Awaited<ReturnType<typeof startStore>>;
let key: BenchKey;
let secret: string;

beforeAll(async () => {
  store = await startStore(SCRIPT);
  stack = await startLocalStack({
    env: {
      // A write-back attempt every second or two, not every few minutes.
      STREAM_RECOVERY_SECONDS: '1',
      CALL_RETRY_DELAY_SECONDS: '1',
      AUTH_CACHE_SECONDS: '1',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_SCALE: '0.2',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
    reconcileEveryMs: 500,
  });
  const { rotateWritebackSecret } = await import('#shared/writeback/writeback-secret.ts');
  key = await ownOrderTenant(stack.baseUrl, 'wb', { ...CALL_NOW_CONFIG, writeback: { enabled: true, url: store.url } }, 'sandbox');
  secret = (await rotateWritebackSecret(key.tenant)).secret;
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await store?.close();
  expect(stack?.refusedCalls ?? []).toEqual([]);
});

/** An order whose customer's number ends in `digit` (the sandbox scenario), its id starting with `prefix`. */
async function placeOrder(prefix: string, digit: string) {
  const id = `${prefix}-${randomUUID().slice(0, 8)}`;
  expect((await send(stack.baseUrl, key, 'PUT', `/customers/c-${id}`, customerBody(`+4915100000${digit}`))).status).toBe(200);
  expect((await send(stack.baseUrl, key, 'POST', '/orders', orderBody(id, `c-${id}`))).status).toBe(201);
  return id;
}

/** The result once its write-back is settled. */
const settled = (id: string) =>
  eventually(
    async () => (await send(stack.baseUrl, key, 'GET', `/orders/${id}/result`)).body,
    (result) => ['written', 'failed', 'not_needed'].includes(result?.writeback?.state),
    { timeoutMs: 90_000, everyMs: 250 },
  );

const failedEvent = async (id: string) => {
  const { tableClient, tableName } = await import('#shared/storage/clients.ts');
  const { keys } = await import('#shared/storage/keys.ts');
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.orderWritebackEvent(keys.order(key.tenant, id).pk) }));
  return Item as { event_type: string; data: { reason: string; attempts: number } } | undefined;
};

describe("write-back to the partner's store", () => {
  it('writes a confirmed result once however often the store answers 5xx first, every attempt with one key and a signature both schemes verify', async () => {
    const id = await placeOrder('flaky', '0');
    expect((await settled(id)).writeback).toEqual({ state: 'written', attempts: 3 });
    const requests = store.of(id);
    expect(requests.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(new Set(requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    for (const request of requests) {
      expect(verifyWebhook(request.headers, request.body, [secret]).valid).toBe(true);
      expect(() => new StandardWebhook(secret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
    }
    expect(JSON.parse(requests[0]!.body)).toMatchObject({
      external_order_id: id,
      business_outcome: 'confirmed',
      final_order_snapshot: { confirmed: true, total: '19.98' },
      correlation_id: expect.stringMatching(/^cor_/),
    });
    expect(await failedEvent(id)).toBeUndefined();
  });

  it('writes a modified result (the customer took the upsell) and a declined one, each once', async () => {
    const [modified, declined] = await Promise.all([placeOrder('mod', '4'), placeOrder('dec', '3')]);
    expect((await settled(modified)).writeback).toEqual({ state: 'written', attempts: 1 });
    expect((await settled(declined)).writeback).toEqual({ state: 'written', attempts: 1 });
    expect(JSON.parse(store.of(modified)[0]!.body)).toMatchObject({ business_outcome: 'modified', final_order_snapshot: { total: '49.00' } });
    expect(JSON.parse(store.of(declined)[0]!.body)).toMatchObject({ business_outcome: 'declined', final_order_snapshot: { confirmed: false } });
    expect(store.of(modified)).toHaveLength(1);
    expect(store.of(declined)).toHaveLength(1);
  });

  it('counts a 409 as written', async () => {
    const id = await placeOrder('dup', '0');
    expect((await settled(id)).writeback).toEqual({ state: 'written', attempts: 1 });
    expect(await failedEvent(id)).toBeUndefined();
  });

  it("ends a 4xx refusal at once in one commerce.writeback.failed.v1 with the store's status and the first of its answer, sanitized", async () => {
    const id = await placeOrder('refused', '0');
    expect((await settled(id)).writeback).toEqual({ state: 'failed', attempts: 1 });
    expect(store.of(id)).toHaveLength(1);
    const event = await failedEvent(id);
    expect(event?.event_type).toBe('commerce.writeback.failed.v1');
    expect(event?.data.reason).toMatch(/^store_refused: 422 .*Order is archived/);
    expect(event?.data.reason).not.toMatch(/\n/);
  });

  it('stops retrying at its bound, with the failed event', async () => {
    const id = await placeOrder('down', '0');
    const { WRITEBACK_ATTEMPTS } = await import('#shared/writeback/writeback.ts');
    expect((await settled(id)).writeback).toEqual({ state: 'failed', attempts: WRITEBACK_ATTEMPTS });
    expect(store.of(id)).toHaveLength(WRITEBACK_ATTEMPTS);
    expect((await failedEvent(id))?.data).toEqual({ reason: 'store_failed: 500', attempts: WRITEBACK_ATTEMPTS });
  });

  it('never calls an address the checks refuse, and says so in the failed event', async () => {
    const { putTenantConfig } = await import('#shared/tenants/config-writer.ts');
    const { createApiKey } = await import('#shared/auth/api-keys.ts');
    const { rotateWritebackSecret } = await import('#shared/writeback/writeback-secret.ts');
    const tenant = `wb-meta-${randomUUID().slice(0, 8)}`;
    // The cloud's metadata address: refused even where private receivers are allowed.
    await putTenantConfig(
      tenant,
      { ...CALL_NOW_CONFIG, writeback: { enabled: true, url: 'http://169.254.169.254/latest/meta-data' } },
      { callPlatform: 'sandbox' },
    );
    await rotateWritebackSecret(tenant);
    const created = await createApiKey(tenant, ['orders:read', 'orders:write', 'results:read', 'customers:write', 'catalog:write']);
    const other = { tenant, keyId: created.key_id, secret: created.secret };
    await send(stack.baseUrl, other, 'POST', '/products/batch', ORDER_TENANT_CATALOG);
    await send(stack.baseUrl, other, 'PUT', '/customers/c-1', customerBody('+491510000000'));
    expect((await send(stack.baseUrl, other, 'POST', '/orders', orderBody('meta-1', 'c-1'))).status).toBe(201);
    const result = await eventually(
      async () => (await send(stack.baseUrl, other, 'GET', '/orders/meta-1/result')).body,
      (r) => r?.writeback?.state === 'failed',
      { timeoutMs: 60_000 },
    );
    expect(result.writeback).toEqual({ state: 'failed', attempts: 1 });
    const { tableClient, tableName } = await import('#shared/storage/clients.ts');
    const { keys } = await import('#shared/storage/keys.ts');
    const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.orderWritebackEvent(keys.order(tenant, 'meta-1').pk) }));
    expect(Item?.data.reason).toMatch(/^endpoint_refused: /);
  });

  it('shows the endpoint in the effective configuration as its scheme and host only, never the secret', async () => {
    const effective = (await send(stack.baseUrl, key, 'GET', '/configuration/effective')).body;
    expect(effective.writeback).toEqual({ enabled: true, endpoint: `${new URL(store.url).origin}/…` });
    expect(JSON.stringify(effective)).not.toContain(secret);
  });
});
