/**
 * API keys in the table. Key secrets are 32 random bytes, derived from the key id (never
 * stored) and shown once at creation; reads for authentication go through a short
 * per-instance cache so that a revoked key stops working within AUTH_CACHE_SECONDS (at most 60 s).
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Scope } from '../api/scopes.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { landed } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';
import { readTenantConfig } from '../tenants/store.ts';
import { keyIdPrefix } from '../tenants/tenant-config.ts';
import { keySecrets } from './key-secret-deriver.ts';

export interface ApiKeyRecord {
  key_id: string;
  tenant: string;
  scopes: Scope[];
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at?: string;
}

export interface CreatedApiKey {
  key_id: string;
  secret: string;
  tenant: string;
  scopes: Scope[];
}

/**
 * Creates a key; its secret is derived (never stored) and returned this once. Its id says its
 * tenant's mode (`key_test_…` for a sandbox tenant, `key_live_…` for a live one), as Stripe's
 * keys do, so a partner cannot take one for the other; ids issued before (`key_…`) stay valid.
 */
export async function createApiKey(tenant: string, scopes: Scope[], now = new Date()): Promise<CreatedApiKey> {
  const mode = (await readTenantConfig(tenant))?.mode ?? 'sandbox';
  const key_id = `${keyIdPrefix(mode)}${randomBytes(12).toString('hex')}`;
  const secret = await keySecrets().secretFor(key_id);
  const record: ApiKeyRecord = { key_id, tenant, scopes, status: 'active', created_at: now.toISOString() };
  const written = await landed({
    put: { TableName: tableName(), Item: { ...keys.apiKey(key_id), entity: 'api_key', ...record }, ConditionExpression: 'attribute_not_exists(pk)' },
  });
  // 96 random bits: a key id already taken is a broken random source, not bad luck.
  if (!written) throw new Error(`API key id ${key_id} exists already`);
  return { key_id, secret, tenant, scopes };
}

/** Returns false when no such key exists. */
export function revokeApiKey(keyId: string, now = new Date()): Promise<boolean> {
  return landed({
    update: {
      TableName: tableName(),
      Key: keys.apiKey(keyId),
      UpdateExpression: 'SET #status = :revoked, revoked_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':revoked': 'revoked', ':now': now.toISOString() },
    },
  });
}

/**
 * Keys made before secrets were derived kept their secret in the item; the service no longer
 * honours it. Each such key gets a new key for its tenant and scopes (secret shown this once),
 * and the old one is revoked with its stored secret removed. Run once, by an operator, with
 * the admin CLI (a scan: it reads the whole table).
 */
export async function reissueLegacyKeys(now = new Date()): Promise<{ revoked: string; created: CreatedApiKey }[]> {
  const reissued: { revoked: string; created: CreatedApiKey }[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tableClient().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'entity = :key AND attribute_exists(secret)',
        ExpressionAttributeValues: { ':key': 'api_key' },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const legacy of (page.Items ?? []) as (ApiKeyRecord & { secret: string })[]) {
      const created = await createApiKey(legacy.tenant, legacy.scopes, now);
      await tableClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.apiKey(legacy.key_id),
          UpdateExpression: 'SET #status = :revoked, revoked_at = :now, replaced_by = :created REMOVE secret',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked', ':now': now.toISOString(), ':created': created.key_id },
        }),
      );
      reissued.push({ revoked: legacy.key_id, created });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return reissued;
}

export async function readApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.apiKey(keyId) }));
  return Item as ApiKeyRecord | undefined;
}
