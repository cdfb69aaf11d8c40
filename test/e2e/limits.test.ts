import { describe, expect, it } from 'vitest';
import { call, newTenant } from '../support/stack.ts';

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
});
