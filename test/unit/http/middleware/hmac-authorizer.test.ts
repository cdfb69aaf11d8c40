import { describe, expect, it } from 'vitest';
import type { AuthPorts } from '#shared/auth/authenticate.ts';
import { signRequest } from '#shared/auth/signing.ts';
import { hmacAuthorizer } from '#shared/http/middleware/hmac-authorizer.ts';
import { apiEvent, chain, withState } from './chain.ts';

const path = '/api/v1/commerce/orders';
const key = { keyId: 'key_a', secret: 'sekret' };

/** The authorizer's ports in memory: one active key, nonces remembered. */
function memoryPorts(): AuthPorts {
  const nonces = new Set<string>();
  return {
    findKey: async (keyId) => (keyId === key.keyId ? { tenant: 'acme', scopes: ['orders:read'], secret: key.secret, status: 'active' } : undefined),
    claimNonce: async (_principal, nonce) => !nonces.has(nonce) && Boolean(nonces.add(nonce)),
    now: () => new Date(),
  };
}

const lower = (headers: object) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

describe('the HMAC authorizer middleware', () => {
  it('authenticates a signed request and hands the handler its principal', async () => {
    const headers = lower(signRequest(key, { method: 'GET', path, nonce: 'n-1' }));
    let tenant: string | undefined;
    const res = await chain([withState({ path, headers }), hmacAuthorizer(memoryPorts())], async (_e, context) => {
      tenant = context.http.principal?.tenant;
      return { statusCode: 200, body: '' };
    })(apiEvent({ httpMethod: 'GET' }));
    expect(res.statusCode).toBe(200);
    expect(tenant).toBe('acme');
  });

  it('refuses a tampered path, an unknown key and a replayed nonce with the contract codes', async () => {
    const ports = memoryPorts();
    const run = (headers: object, at = path) => chain([withState({ path: at, headers: lower(headers) }), hmacAuthorizer(ports)])(apiEvent());
    const signed = signRequest(key, { method: 'GET', path, nonce: 'n-2' });
    await expect(run(signed, `${path}/other`)).rejects.toMatchObject({ code: 'invalid_signature' });
    await expect(run(signRequest({ keyId: 'key_unknown', secret: 'x' }, { method: 'GET', path, nonce: 'n-3' }))).rejects.toMatchObject({
      code: 'invalid_signature',
    });
    await expect(run(signed)).resolves.toMatchObject({ statusCode: 200 });
    await expect(run(signed)).rejects.toMatchObject({ code: 'replay_nonce' });
  });

  it('says which check failed where that tells nothing about any key: a missing header, the body hash; never which of key and secret', async () => {
    const ports = memoryPorts();
    const run = (headers: object, body = '') =>
      chain([withState({ path, headers: lower(headers), body: Buffer.from(body) }), hmacAuthorizer(ports)])(apiEvent({ body }));
    const { 'X-SVC-Nonce': _nonce, ...withoutNonce } = signRequest(key, { method: 'POST', path, nonce: 'n-4' });
    await expect(run(withoutNonce)).rejects.toMatchObject({ code: 'invalid_signature', message: expect.stringContaining('X-SVC-Nonce is missing') });
    await expect(run(signRequest(key, { method: 'POST', path, nonce: 'n-5', body: '{"a":1}' }), '{"a":2}')).rejects.toMatchObject({
      message: expect.stringContaining('X-SVC-Content-SHA256 is not the hex SHA-256 of the body'),
    });
    const wrongSecret = signRequest({ ...key, secret: 'wrong' }, { method: 'GET', path, nonce: 'n-6' });
    const unknownKey = signRequest({ keyId: 'key_unknown', secret: 'sekret' }, { method: 'GET', path, nonce: 'n-7' });
    const [a, b] = await Promise.all([run(wrongSecret).catch((e: Error) => e.message), run(unknownKey).catch((e: Error) => e.message)]);
    expect(a).toBe(b);
    expect(a).toContain('The signature does not verify');
  });
});
