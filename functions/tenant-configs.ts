/** The tenant configuration cache of a function instance (AUTH_CACHE_SECONDS), for the functions that read tenant settings. */
import { tenantConfigCache } from '#shared/tenants/config-cache.ts';
import { config } from './composition-root.ts';

export const tenantConfigs = tenantConfigCache(config.authCacheSeconds);
export const tenantConfigOf = tenantConfigs.get;
