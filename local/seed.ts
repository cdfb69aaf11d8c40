/** First-start seeding of the local runtime: tenant `sandbox` and a key with every scope. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { SCOPES } from '../functions/routes.ts';
import { SANDBOX_CONFIG, SANDBOX_TENANT } from '../shared/tenants/config.ts';
import { createApiKey, putTenantConfig, readApiKey, readTenantConfig } from '../shared/tenants/store.ts';

export interface LocalCredentials {
  key_id: string;
  secret: string;
  base_url: string;
}

export async function seedSandbox(credentialsFile: string, baseUrl: string): Promise<LocalCredentials> {
  if (!(await readTenantConfig(SANDBOX_TENANT))) await putTenantConfig(SANDBOX_TENANT, SANDBOX_CONFIG);
  const existing: LocalCredentials | undefined = existsSync(credentialsFile) ? JSON.parse(readFileSync(credentialsFile, 'utf8')) : undefined;
  const stillValid = existing && (await readApiKey(existing.key_id))?.status === 'active';
  const credentials = stillValid
    ? { ...existing, base_url: baseUrl }
    : await createApiKey(SANDBOX_TENANT, [...SCOPES]).then((k) => ({ key_id: k.key_id, secret: k.secret, base_url: baseUrl }));
  writeFileSync(credentialsFile, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  return credentials;
}
