/** Tenants in the table: each tenant's stored configuration. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { type StoredTenantConfig, type TenantConfig, withTenantDefaults } from './tenant-config.ts';

/** The configuration stored for `tenant`, every missing field at its default; undefined when it has none. `consistent`: as last written (a writer merging over it). */
export async function readTenantConfig(tenant: string, options: { consistent?: boolean } = {}): Promise<TenantConfig | undefined> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.tenantConfig(tenant), ...(options.consistent ? { ConsistentRead: true } : {}) }),
  );
  return Item ? withTenantDefaults(Item.config as StoredTenantConfig) : undefined;
}
