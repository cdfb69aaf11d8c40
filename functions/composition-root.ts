/**
 * What every function builds once per instance, at module scope: the configuration (parsed
 * from the environment here and nowhere below) and the caches shared by its handlers.
 */
import { runtimeConfig } from '#shared/config/runtime.ts';
import { tenantConfigCache } from '#shared/tenants/config-cache.ts';

export const config = runtimeConfig();

export const tenantConfigs = tenantConfigCache(config.authCacheSeconds);
export const tenantConfigOf = tenantConfigs.get;
