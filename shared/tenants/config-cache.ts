/**
 * A tenant's configuration changes rarely and nearly every request and order step reads it:
 * it is cached per function instance as briefly as API keys are (AUTH_CACHE_SECONDS).
 */
import { ttlCache } from '../caching/ttl-cache.ts';
import { readTenantConfig } from './store.ts';
import { type TenantConfig, withTenantDefaults } from './tenant-config.ts';

export type TenantConfigOf = (tenant: string) => Promise<TenantConfig>;

/** An unknown tenant runs on the defaults: it is simply not ready (no market configured). */
export function tenantConfigCache(cacheSeconds: number) {
  const cache = ttlCache<TenantConfig>(async (tenant) => (await readTenantConfig(tenant)) ?? withTenantDefaults(), cacheSeconds * 1000);
  return { get: ((tenant) => cache.get(tenant)) as TenantConfigOf, clear: cache.clear };
}
