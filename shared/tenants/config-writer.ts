/** Writing a tenant's configuration: validated here, where it enters the table, and read back by the functions as stored. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { type TenantConfig, TenantConfigSchema } from './config.ts';

export async function putTenantConfig(tenant: string, input: unknown, now = new Date()): Promise<TenantConfig> {
  const config = TenantConfigSchema.parse(input);
  await tableClient().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.tenantConfig(tenant), entity: 'tenant', tenant, config, updated_at: now.toISOString() },
    }),
  );
  return config;
}
