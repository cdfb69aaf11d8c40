/** API key secrets are derived, never stored: the table holds ids and scopes only. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createApiKey, reissueLegacyKeys, revokeApiKey } from '#shared/auth/api-keys.ts';
import { dynamoAuthPorts, KEY_RECORD_SECONDS } from '#shared/auth/dynamodb-adapters.ts';
import { keySecrets } from '#shared/auth/key-secret-deriver.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { putTenantConfig, TenantConfigRefusedError } from '#shared/tenants/config-writer.ts';
import { call, newTenant } from '../support/stack.ts';

describe('API keys', () => {
  it('keep no secret in the table: the key item holds neither the secret nor anything it could be read from', async () => {
    const key = await newTenant();
    const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.apiKey(key.keyId), ConsistentRead: true }));
    expect(Item).toMatchObject({ key_id: key.keyId, tenant: key.tenant, status: 'active' });
    expect(Item?.secret).toBeUndefined();
    expect(JSON.stringify(Item)).not.toContain(key.secret);
    // The runtime derives the same secret: a request signed with it is accepted.
    expect((await call(key, 'GET', '/capabilities')).status).toBe(200);
    expect(await keySecrets().secretFor(key.keyId)).toBe(key.secret);
  });

  it("show their tenant's mode in new ids, so a sandbox key cannot be taken for a live one", async () => {
    const sandbox = await newTenant();
    expect(sandbox.keyId).toMatch(/^key_test_[0-9a-f]{24}$/);
    // A live tenant exists only on a deployment with a live call platform.
    const live = `live-${Date.now()}`;
    await putTenantConfig(live, { mode: 'live', markets: [] }, { callPlatform: 'connect' });
    expect((await createApiKey(live, ['commerce:read'])).key_id).toMatch(/^key_live_[0-9a-f]{24}$/);
    await expect(putTenantConfig(`${live}-2`, { mode: 'live' }, { callPlatform: 'sandbox' })).rejects.toThrow(TenantConfigRefusedError);
  });

  it('stop working within a few seconds of their revocation on an instance that caches them, whatever its cache time', { timeout: 30_000 }, async () => {
    const key = await newTenant();
    const ports = dynamoAuthPorts({ cacheSeconds: 30, secrets: keySecrets() });
    expect(await ports.findKey(key.keyId)).toMatchObject({ status: 'active', secret: key.secret });
    expect(await revokeApiKey(key.keyId)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, (KEY_RECORD_SECONDS + 0.5) * 1000));
    expect(await ports.findKey(key.keyId)).toMatchObject({ status: 'revoked' });
  });

  it('no longer honour a secret a legacy key item kept: the admin re-issue gives its tenant a new key and ends the old one', { timeout: 120_000 }, async () => {
    const key = await newTenant();
    const legacy = { keyId: `key_legacy${Date.now()}`, secret: 'legacy-secret-kept-in-the-item', tenant: key.tenant };
    const item = {
      ...keys.apiKey(legacy.keyId),
      entity: 'api_key',
      key_id: legacy.keyId,
      tenant: key.tenant,
      scopes: ['commerce:read'],
      secret: legacy.secret,
    };
    await tableClient().send(new PutCommand({ TableName: tableName(), Item: { ...item, status: 'active' } }));
    expect((await call(legacy, 'GET', '/capabilities')).status).toBe(401);
    const reissued = (await reissueLegacyKeys()).find((r) => r.revoked === legacy.keyId)!;
    expect(reissued.created).toMatchObject({ tenant: key.tenant, scopes: ['commerce:read'] });
    const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.apiKey(legacy.keyId), ConsistentRead: true }));
    expect(Item).toMatchObject({ status: 'revoked', replaced_by: reissued.created.key_id });
    expect(Item?.secret).toBeUndefined();
    const renewed = { keyId: reissued.created.key_id, secret: reissued.created.secret, tenant: key.tenant };
    expect((await call(renewed, 'GET', '/capabilities')).status).toBe(200);
  });
});
