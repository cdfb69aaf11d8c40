/**
 * A tenant ready for orders on a runtime a test file started itself (not the shared stack):
 * configured, keyed, with the order tenant's catalog and the upsell rule scenario 4 takes.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { type BenchKey, send } from '#bench/lib/client.ts';
import { localDeploymentCalls } from '#local/deployment.ts';
import { SCOPES } from '#shared/api/scopes.ts';
import { ORDER_TENANT_CATALOG } from './order-fixtures.ts';

export const UPSELL_RULE = {
  rule_type: 'upsell',
  priority: 5,
  applies_to: { external_variant_ids: ['beans'] },
  action: { suggest_variant: 'beans-1kg' },
  source_version: '1',
};

export async function ownOrderTenant(baseUrl: string, prefix: string, config: object, callPlatform: 'sandbox' | 'connect'): Promise<BenchKey> {
  const { putTenantConfig } = await import('#shared/tenants/config-writer.ts');
  const { createApiKey } = await import('#shared/auth/api-keys.ts');
  const tenant = `${prefix}-${randomUUID().slice(0, 8)}`;
  await putTenantConfig(tenant, config, localDeploymentCalls({ ...process.env, CALL_PLATFORM: callPlatform }));
  const created = await createApiKey(tenant, [...SCOPES]);
  const key = { tenant, keyId: created.key_id, secret: created.secret };
  expect((await send(baseUrl, key, 'POST', '/products/batch', ORDER_TENANT_CATALOG)).body.rejected).toBe(0);
  expect((await send(baseUrl, key, 'PUT', '/sales-rules/upsell-1', UPSELL_RULE)).status).toBe(200);
  return key;
}
