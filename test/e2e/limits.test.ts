import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { baseUrl, call, newTenant } from '../support/stack.ts';

describe('request limits and tenant gate', () => {
  const bodyOfBytes = (bytes: number) => `{"products":[],"pad":"${'x'.repeat(bytes - 24)}"}`;

  it('answers 413 payload_too_large to a body of 2 MiB + 1 byte, and lets exactly 2 MiB through', async () => {
    const key = await newTenant();
    const over = bodyOfBytes(2 * 1024 * 1024 + 1);
    expect(Buffer.byteLength(over)).toBe(2 * 1024 * 1024 + 1);
    const res = await call(key, 'POST', '/products/batch', { rawBody: over });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
    const atLimit = await call(key, 'POST', '/products/batch', { rawBody: bodyOfBytes(2 * 1024 * 1024) });
    expect(atLimit.status).not.toBe(413);
  });

  it('answers 413 payload_too_large to a body past API Gateway’s 10 MiB, as the gateway does, instead of dropping the connection', async () => {
    const key = await newTenant();
    // Several at once beside ordinary requests, as a client splitting an import would send them.
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        i % 2 ? call(key, 'PUT', `/sales-rules/r-${i}`, { rawBody: bodyOfBytes(10 * 1024 * 1024 + 1) }) : call(key, 'GET', '/capabilities'),
      ),
    );
    expect(answers.map((res) => [res.status, res.body.code])).toEqual(
      Array.from({ length: 16 }, (_, i) => (i % 2 ? [413, 'payload_too_large'] : [200, undefined])),
    );
  });

  it('answers 415 unsupported_media_type to a body that is not declared as JSON', async () => {
    const key = await newTenant();
    const res = await call(key, 'PUT', '/customers/c-1', { body: { a: 1 }, headers: { 'Content-Type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
  });

  it('answers 422 with a header pointer when a mutation lacks Idempotency-Key', async () => {
    const key = await newTenant();
    const res = await call(key, 'POST', '/orders', { body: {}, idempotencyKey: null });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ pointer: 'header:Idempotency-Key', message: expect.any(String) }]);
  });

  it('answers 503 tenant_unavailable with Retry-After to a suspended tenant', async () => {
    const key = await newTenant({ config: { status: 'suspended' } });
    const res = await call(key, 'GET', '/capabilities');
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('tenant_unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers 429 rate_limited with Retry-After once a key exceeds its burst', async () => {
    const key = await newTenant({ config: { rate_limit: { requests_per_second: 1, burst: 3 } } });
    // Fixed windows of burst/rate = 3 s: eight requests sent together land in at most two
    // windows, which admit at most 6, so at least two must be refused wherever the boundary falls.
    const responses = await Promise.all(Array.from({ length: 8 }, () => call(key, 'GET', '/capabilities')));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    for (const res of responses.filter((r) => r.status === 429)) {
      expect(res.body.code).toBe('rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(3);
    }
  });

  it('answers a 2 MB rule of empty ids with one bounded 413 naming the array, and the runtime keeps serving', async () => {
    const key = await newTenant();
    const ids = new Array(650_000).fill('');
    const body = { rule_type: 'upsell', applies_to: { external_product_ids: ids }, action: { suggest_variant: 'x' }, source_version: '1' };
    const res = await call(key, 'PUT', '/sales-rules/huge', { body });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
    expect(res.body.detail).toContain('`/applies_to/external_product_ids` must have at most 1000 items');
    expect(res.text.length).toBeLessThan(4096);
    expect((await call(key, 'GET', '/capabilities')).status).toBe(200);
  });

  it('answers 413 payload_too_large to a batch of more than 500 products however small each is (a client splits on 413)', async () => {
    const key = await newTenant();
    const tiny = (n: number) => Array.from({ length: n }, (_, i) => ({ external_product_id: `p${i}` }));
    for (const count of [501, 1_001, 5_000]) {
      const res = await call(key, 'POST', '/products/batch', { body: { products: tiny(count) } });
      expect([count, res.status, res.body.code]).toEqual([count, 413, 'payload_too_large']);
    }
  });

  it('lists at most 10 reasons per rejected product of a batch, and a retry of its large answer replays it whole, without running it again', async () => {
    const key = await newTenant();
    const badVariants = Array.from({ length: 50 }, (_, i) => ({ external_variant_id: `v${i}`, price: 'x', currency: 'XXX' }));
    const products = Array.from({ length: 500 }, (_, i) => ({ external_product_id: `p${i}`, title: 't', source_version: '1', variants: badVariants }));
    const first = await call(key, 'POST', '/products/batch', { body: { products }, idempotencyKey: 'big-batch' });
    expect(first.status).toBe(200);
    expect(first.body.rejected).toBe(500);
    for (const result of first.body.results) {
      expect(result.errors).toHaveLength(10);
      expect(result.errors_total).toBeGreaterThan(10);
    }
    const replay = await call(key, 'POST', '/products/batch', { body: { products }, idempotencyKey: 'big-batch' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(first.text.length).toBeGreaterThan(300 * 1024);
    expect(replay.body).toEqual(first.body);
  });

  it('keeps serving after clients hang up in the middle of a request or before the answer', async () => {
    const key = await newTenant();
    const { hostname, port } = new URL(baseUrl);
    for (let i = 0; i < 20; i++) {
      await new Promise<void>((resolve) => {
        const socket = connect(Number(port), hostname, () => {
          socket.write(
            `POST ${new URL(baseUrl).pathname}/products/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n{"products":[`,
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 5);
        });
        socket.on('error', () => resolve());
      });
    }
    const pending = Array.from({ length: 10 }, () => call(key, 'GET', '/capabilities'));
    expect((await Promise.all(pending)).every((r) => r.status === 200)).toBe(true);
  });
});
