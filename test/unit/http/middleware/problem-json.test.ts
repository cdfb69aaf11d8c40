import { describe, expect, it } from 'vitest';
import { NotFoundError, RateLimitedError, ValidationError } from '#shared/errors.ts';
import { problemJson } from '#shared/http/middleware/problem-json.ts';
import { chain, withState } from './chain.ts';

const route = { operationId: 'getOrder', path: '/orders/{externalOrderId}' } as never;
const failing = (error: unknown) => chain([problemJson(route), withState({ path: '/api/v1/commerce/orders/o-1' })], async () => Promise.reject(error))();

describe('the problem+json middleware', () => {
  it('renders a domain error as its problem, with the headers and members its data calls for', async () => {
    const res = await failing(new RateLimitedError(7));
    expect(res.statusCode).toBe(429);
    expect(res.headers).toMatchObject({ 'Content-Type': 'application/problem+json', 'Retry-After': '7' });
    expect(JSON.parse(res.body)).toMatchObject({ code: 'rate_limited', status: 429, instance: '/api/v1/commerce/orders/o-1', request_id: 'req-1' });
    const invalid = JSON.parse((await failing(new ValidationError([{ pointer: '/items/0/quantity', message: 'too small' }]))).body);
    expect(invalid).toMatchObject({ code: 'validation_failed', errors: [{ pointer: '/items/0/quantity', message: 'too small' }] });
    expect((await failing(new NotFoundError('No order o-1.'))).statusCode).toBe(404);
  });

  it('answers AWS still busy after the SDK retries (throttling, a 5xx, a dropped connection) with 429 and Retry-After, not 500', async () => {
    const throttled = Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
      name: 'ProvisionedThroughputExceededException',
      $metadata: { httpStatusCode: 400 },
    });
    const dropped = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', $metadata: {} });
    for (const error of [throttled, dropped]) {
      const res = await failing(error);
      expect(res.statusCode).toBe(429);
      expect(res.headers).toMatchObject({ 'Retry-After': '1' });
      expect(JSON.parse(res.body)).toMatchObject({ code: 'rate_limited', request_id: 'req-1' });
      expect(res.body).not.toMatch(/throughput|socket/);
    }
  });

  it('answers anything else with a generic 500 that carries no detail of the error', async () => {
    const res = await failing(new Error('connect ECONNREFUSED 10.0.0.1:443 at /srv/shared/orders/order-store.ts:42'));
    expect(res.statusCode).toBe(500);
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ code: 'internal_error', request_id: 'req-1' });
    expect(res.body).not.toMatch(/ECONNREFUSED|10\.0\.0\.1|\.ts/);
  });
});
