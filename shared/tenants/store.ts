/** Tenants in the table: each tenant's stored configuration. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { type StoredTenantConfig, type TenantConfig, withTenantDefaults } from './tenant-config.ts';

export async function readTenantConfig(tenant: string): Promise<TenantConfig | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.tenantConfig(tenant) }));
  return Item ? withTenantDefaults(Item.config as StoredTenantConfig) : undefined;
}
