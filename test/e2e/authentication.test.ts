/**
 * The HMAC authorizer and scope check on every route of the route table: generated from
 * the table, so a new route is covered automatically.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.ts';
import { SCOPES } from '#shared/api/scopes.ts';
import { call, keyFor, newTenant, samplePath, type TestKey } from '../support/stack.ts';

const iso = (offsetSeconds: number) => new Date(Date.now() + offsetSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

let key: TestKey;
beforeAll(async () => {
  key = await newTenant();
});

describe.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', (_, route) => {
  const path = samplePath(route.path);
  const body = route.method === 'GET' ? undefined : { probe: true };
  const expectProblem = (res: { status: number; body: any; headers: Headers }, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body.code).toBe(code);
    expect(res.headers.get('x-request-id')).toBe(res.body.request_id);
  };

  it('rejects an unsigned request with 401 invalid_signature', async () => {
    expectProblem(await call(key, route.method, path, { body, unsigned: true }), 401, 'invalid_signature');
  });

  it('rejects a signature made with the wrong secret', async () => {
    expectProblem(await call({ ...key, secret: 'not-the-secret' }, route.method, path, { body }), 401, 'invalid_signature');
  });

  it('rejects an unknown key id exactly like a bad signature', async () => {
    expectProblem(await call({ ...key, keyId: 'key_does_not_exist' }, route.method, path, { body }), 401, 'invalid_signature');
  });

  it('rejects a tampered body', async () => {
    // A GET carries no body: its signed body hash then claims a body that was not sent.
    const sent = route.method === 'GET' ? undefined : { probe: 'sent' };
    const res = await call(key, route.method, path, { body: sent, tamper: (s) => ({ ...s, body: JSON.stringify({ probe: 'signed' }) }) });
    expectProblem(res, 401, 'invalid_signature');
  });

  it('rejects a tampered query', async () => {
    const res = await call(key, route.method, path, { body, query: { limit: '7' }, tamper: (s) => ({ ...s, query: { limit: ['8'] } }) });
    expectProblem(res, 401, 'invalid_signature');
  });

  it('rejects a timestamp 310 s in the past with 401 expired_timestamp', async () => {
    expectProblem(await call(key, route.method, path, { body, timestamp: iso(-310) }), 401, 'expired_timestamp');
  });

  it('rejects a timestamp 310 s in the future with 401 expired_timestamp', async () => {
    expectProblem(await call(key, route.method, path, { body, timestamp: iso(310) }), 401, 'expired_timestamp');
  });

  it('rejects a replayed nonce with 401 replay_nonce', async () => {
    const nonce = `n-${randomUUID()}`;
    const first = await call(key, route.method, path, { body, nonce });
    expect(first.status).not.toBe(401);
    expectProblem(await call(key, route.method, path, { body, nonce }), 401, 'replay_nonce');
  });

  it(`rejects a key without ${route.scope} with 403 insufficient_scope`, async () => {
    const narrow = await keyFor(
      key.tenant,
      SCOPES.filter((s) => s !== route.scope),
    );
    const res = await call(narrow, route.method, path, { body });
    expectProblem(res, 403, 'insufficient_scope');
    expect(res.body.required_scope).toBe(route.scope);
  });
});
