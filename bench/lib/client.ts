/** A signed HTTP client for benchmarks: a fresh nonce per request, as partners send them. */
import { randomUUID } from 'node:crypto';
import { localDeploymentCalls } from '#local/deployment.ts';
import { BASE_PATH } from '#shared/api/routes.ts';
import { SCOPES } from '#shared/api/scopes.ts';
import { createApiKey } from '#shared/auth/api-keys.ts';
import { signRequest } from '#shared/auth/signing.ts';
import { putTenantConfig } from '#shared/tenants/config-writer.ts';

export interface BenchKey {
  tenant: string;
  keyId: string;
  secret: string;
}

export const CALL_NOW_CONFIG = {
  markets: [{ country: 'DE', locale_default: 'de-DE', calling_days: [1, 2, 3, 4, 5, 6, 7] }],
  quiet_hours: { timezone: 'Europe/Berlin', dont_call_hour_start: 0, dont_call_hour_end: 0 },
  rate_limit: { requests_per_second: 10_000, burst: 20_000 },
};

export async function benchTenant(name: string, config: unknown = CALL_NOW_CONFIG): Promise<BenchKey> {
  const tenant = `${name}-${randomUUID().slice(0, 8)}`;
  await putTenantConfig(tenant, config, localDeploymentCalls());
  const key = await createApiKey(tenant, [...SCOPES]);
  return { tenant, keyId: key.key_id, secret: key.secret };
}

/** Headers and body of a signed request, ready for fetch or autocannon. */
export function signed(key: BenchKey, method: string, relativePath: string, body?: unknown) {
  const path = BASE_PATH + relativePath;
  const raw = body === undefined ? '' : JSON.stringify(body);
  const headers: Record<string, string> = {
    ...signRequest(key, { method, path, body: raw, nonce: randomUUID() }),
    ...(raw ? { 'Content-Type': 'application/json' } : {}),
    ...(method === 'GET' ? {} : { 'Idempotency-Key': randomUUID() }),
  };
  return { path, headers, body: raw };
}

export async function send(baseUrl: string, key: BenchKey, method: string, relativePath: string, body?: unknown) {
  const req = signed(key, method, relativePath, body);
  const origin = baseUrl.slice(0, -BASE_PATH.length);
  const res = await fetch(origin + req.path, { method, headers: req.headers, ...(req.body ? { body: req.body } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
