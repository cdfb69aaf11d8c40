/**
 * What every function reads once per instance, at module scope: the configuration, parsed
 * from the environment here and nowhere below. (Caches live in their own modules, so a
 * function loads only what it uses: the webhook sender never loads the tenant schemas.)
 */
import { runtimeConfig } from '#shared/config/runtime.ts';

export const config = runtimeConfig();
