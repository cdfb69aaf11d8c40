import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authenticate } from '#shared/auth/authenticate.ts';
import { dynamoAuthPorts } from '#shared/auth/dynamodb-adapters.ts';
import { keySecrets } from '#shared/auth/key-secret-deriver.ts';
import { signRequest } from '#shared/auth/signing.ts';
import { newTenant } from '../support/stack.ts';

const request = (key: { keyId: string; secret: string }, nonce: string, at: Date) => {
  const timestamp = at.toISOString();
  const headers = signRequest(key, { method: 'GET', path: '/api/v1/commerce/capabilities', nonce, timestamp });
  return {
    method: 'GET',
    path: '/api/v1/commerce/capabilities',
    query: {},
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
    body: Buffer.alloc(0),
  };
};

describe('nonces in DynamoDB Local', () => {
  it('refuses a nonce again within its window and accepts it once the window has passed, though TTL has not deleted the item', async () => {
    const key = await newTenant();
    const nonce = `nonce-${randomUUID()}`;
    const t0 = new Date();
    const clockAt = (d: Date) => dynamoAuthPorts({ cacheSeconds: 1, secrets: keySecrets(), now: () => d });

    await expect(authenticate(request(key, nonce, t0), clockAt(t0))).resolves.toMatchObject({ tenant: key.tenant });
    const later = new Date(t0.getTime() + 200_000);
    await expect(authenticate(request(key, nonce, later), clockAt(later))).rejects.toMatchObject({ code: 'replay_nonce' });

    // 301 s after the first request's timestamp its nonce record has expired; DynamoDB Local
    // has not deleted it (TTL runs lazily), and the conditional write must treat it as free.
    const afterWindow = new Date(t0.getTime() + 301_000);
    await expect(authenticate(request(key, nonce, afterWindow), clockAt(afterWindow))).resolves.toMatchObject({ tenant: key.tenant });
  });

  it('refuses a nonce for 300 s after it was first seen, whatever timestamp it is signed with', async () => {
    const key = await newTenant();
    const nonce = `nonce-${randomUUID()}`;
    const seen = new Date();
    const clockAt = (d: Date) => dynamoAuthPorts({ cacheSeconds: 1, secrets: keySecrets(), now: () => d });
    // First seen with a timestamp 297 s old (still inside the window) ...
    await expect(authenticate(request(key, nonce, new Date(seen.getTime() - 297_000)), clockAt(seen))).resolves.toMatchObject({ tenant: key.tenant });
    // ... and sent again 4.5 s later, and 299 s later, each under a fresh timestamp.
    for (const after of [4_500, 299_000]) {
      const at = new Date(seen.getTime() + after);
      await expect(authenticate(request(key, nonce, at), clockAt(at))).rejects.toMatchObject({ code: 'replay_nonce' });
    }
    const free = new Date(seen.getTime() + 301_000);
    await expect(authenticate(request(key, nonce, free), clockAt(free))).resolves.toMatchObject({ tenant: key.tenant });
  });

  it('keys nonces per key: the same nonce from another key of the tenant is accepted', async () => {
    const key = await newTenant();
    const { keyFor } = await import('../support/stack.ts');
    const other = await keyFor(key.tenant, ['commerce:read']);
    const nonce = `nonce-${randomUUID()}`;
    const now = new Date();
    await authenticate(request(key, nonce, now), dynamoAuthPorts({ cacheSeconds: 1, secrets: keySecrets() }));
    await expect(authenticate(request(other, nonce, now), dynamoAuthPorts({ cacheSeconds: 1, secrets: keySecrets() }))).resolves.toMatchObject({
      keyId: other.keyId,
    });
  });
});
