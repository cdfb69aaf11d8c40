/** First-start seeding of the local runtime: tenant `sandbox` and a key with every scope. */

import { SCOPES } from '#shared/api/scopes.ts';
import { createApiKey, readApiKey } from '#shared/auth/api-keys.ts';
import { putTenantConfig } from '#shared/tenants/config-writer.ts';
import { readTenantConfig } from '#shared/tenants/store.ts';
import { localDeploymentCalls } from './deployment.ts';
import { readJsonFile, writeFileAtomic } from './durable-file.ts';

const SANDBOX_TENANT = 'sandbox';
/** The seeded tenant calls every day without quiet hours, so the sandbox scenarios run at once. */
const SANDBOX_CONFIG = {
  markets: [{ country: 'DE', locale_default: 'de-DE', calling_days: [1, 2, 3, 4, 5, 6, 7] }],
  quiet_hours: { timezone: 'Europe/Berlin', dont_call_hour_start: 0, dont_call_hour_end: 0 },
  writeback: { enabled: true },
};

export interface LocalCredentials {
  key_id: string;
  secret: string;
  base_url: string;
  /** The local EventBridge bus (PutEvents): another Connect stand-in publishes its contact events here. */
  events_endpoint?: string;
}

export async function seedSandbox(credentialsFile: string, baseUrl: string, eventsEndpoint: string): Promise<LocalCredentials> {
  if (!(await readTenantConfig(SANDBOX_TENANT))) await putTenantConfig(SANDBOX_TENANT, SANDBOX_CONFIG, localDeploymentCalls());
  const existing = readJsonFile<LocalCredentials>(credentialsFile, (reason) => console.error(`WARNING: ${reason}; a new key is created`));
  const stillValid = typeof existing?.key_id === 'string' && (await readApiKey(existing.key_id))?.status === 'active';
  const credentials = stillValid
    ? { ...existing, base_url: baseUrl, events_endpoint: eventsEndpoint }
    : await createApiKey(SANDBOX_TENANT, [...SCOPES]).then((k) => ({ key_id: k.key_id, secret: k.secret, base_url: baseUrl, events_endpoint: eventsEndpoint }));
  writeFileAtomic(credentialsFile, `${JSON.stringify(credentials, null, 2)}\n`, 0o600);
  return credentials;
}
