/** Writing a tenant's configuration: validated here, where it enters the table, and read back by the functions as stored. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { type TenantConfig, TenantConfigSchema } from './config.ts';

/** A live tenant on a deployment that has no call platform for live calls. */
export class LiveModeUnavailableError extends Error {
  override readonly name = 'LiveModeUnavailableError';
}

/** What the deployment offers tenants: the call platform of its live tenants (`sandbox`: none). */
export interface DeploymentCalls {
  callPlatform: string;
}

/**
 * A live tenant's customers are called through the deployment's call platform, never by the
 * simulation: on a deployment without one, the configuration is refused, so no real customer's
 * order is ever decided by a phone number's last digit.
 */
export function checkTenantMode(tenant: string, config: TenantConfig, deployment: DeploymentCalls): void {
  if (config.mode !== 'live' || deployment.callPlatform !== 'sandbox') return;
  throw new LiveModeUnavailableError(
    `tenant ${tenant} cannot be live on this deployment: it has no call platform for live calls (CALL_PLATFORM=sandbox), so its customers could not be called. ` +
      'Deploy with a live call platform (-c callPlatform=connect), or keep "mode": "sandbox".',
  );
}

export async function putTenantConfig(tenant: string, input: unknown, deployment: DeploymentCalls, now = new Date()): Promise<TenantConfig> {
  const config = TenantConfigSchema.parse(input);
  checkTenantMode(tenant, config, deployment);
  await tableClient().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.tenantConfig(tenant), entity: 'tenant', tenant, config, updated_at: now.toISOString() },
    }),
  );
  return config;
}
