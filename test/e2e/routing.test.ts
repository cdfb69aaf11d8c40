import { describe, expect, it } from 'vitest';
import { baseUrl, call, newTenant } from '../support/stack.ts';

describe('the local gateway answers like API Gateway with problem+json', () => {
  it('gives 404 resource_not_found for an unknown route', async () => {
    const key = await newTenant();
    const res = await call(key, 'GET', '/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toMatchObject({ code: 'resource_not_found', status: 404, instance: '/api/v1/commerce/no-such-thing' });
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('gives 405 method_not_allowed with Allow for a known path and an unknown method', async () => {
    const key = await newTenant();
    const res = await call(key, 'PATCH', '/capabilities');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(res.body.code).toBe('method_not_allowed');
  });

  it('gives 404 outside the base path', async () => {
    const res = await fetch(baseUrl.replace('/api/v1/commerce', '/elsewhere'));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });

  it('leads a browser opening the local address to the reference', async () => {
    const res = await fetch(baseUrl.replace('/api/v1/commerce', '/'), { redirect: 'manual' });
    expect({ status: res.status, location: res.headers.get('location') }).toEqual({ status: 302, location: '/docs' });
  });
});
