/**
 * Tenant configuration (contract-decisions section 9): the schema the admin CLI accepts, with
 * the defaults a missing field keeps. Only writers and the contract build it; the functions
 * read the stored configuration through `tenant-config.ts`.
 */
import * as z from 'zod/mini';
import { builtOnFirstUse, integer, text } from '../api/zod.ts';
import { MAX_RETRY_DELAY_SECONDS, TENANT_DEFAULTS, TENANT_MODES, type TenantConfig } from './tenant-config.ts';

export { TENANT_DEFAULTS, TENANT_ID_PATTERN, type TenantConfig } from './tenant-config.ts';

const hour = builtOnFirstUse(() => integer(0, 23));

export const isValidTimeZone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const MarketSchema = builtOnFirstUse(() =>
  z.strictObject({
    country: z.string().check(z.regex(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2 country code')),
    locale_default: text(2, 35),
    calling_days: z.array(integer(1, 7)).check(z.minLength(1), z.maxLength(7)),
    display_name: z.optional(text(1, 80)),
    timezone: z.optional(z.string().check(z.refine(isValidTimeZone, 'an IANA time zone name'))),
    quiet_hours: z.optional(z.strictObject({ dont_call_hour_start: hour, dont_call_hour_end: hour })),
  }),
);

export const QuietHoursSchema = builtOnFirstUse(() =>
  z.strictObject({
    timezone: z.string().check(z.refine(isValidTimeZone, 'an IANA time zone name')),
    dont_call_hour_start: hour,
    dont_call_hour_end: hour,
  }),
);

export const TenantConfigSchema = builtOnFirstUse(() =>
  z.strictObject({
    status: z._default(z.enum(['active', 'suspended']), TENANT_DEFAULTS.status),
    mode: z._default(z.enum(TENANT_MODES), TENANT_DEFAULTS.mode),
    display_name: z._default(z.nullable(text(1, 80)), TENANT_DEFAULTS.display_name),
    markets: z._default(z.array(MarketSchema).check(z.maxLength(50)), TENANT_DEFAULTS.markets),
    quiet_hours: z._default(QuietHoursSchema, TENANT_DEFAULTS.quiet_hours),
    features_enabled: z._default(
      z.strictObject({
        upsell: z._default(z.boolean(), TENANT_DEFAULTS.features_enabled.upsell),
        repurchase_intent: z._default(z.boolean(), TENANT_DEFAULTS.features_enabled.repurchase_intent),
      }),
      TENANT_DEFAULTS.features_enabled,
    ),
    writeback: z._default(
      z.strictObject({
        enabled: z._default(z.boolean(), TENANT_DEFAULTS.writeback.enabled),
        // Checked as a webhook URL is (https, no userinfo, a public host) where the configuration is written.
        url: z._default(z.nullable(text(1, 2048)), TENANT_DEFAULTS.writeback.url),
      }),
      TENANT_DEFAULTS.writeback,
    ),
    max_call_attempts: z._default(integer(1, 10), TENANT_DEFAULTS.max_call_attempts),
    call_retry_delay_seconds: z._default(z.nullable(integer(0, MAX_RETRY_DELAY_SECONDS)), TENANT_DEFAULTS.call_retry_delay_seconds),
    rate_limit: z._default(
      z.strictObject({
        requests_per_second: z._default(integer(1, 10_000), TENANT_DEFAULTS.rate_limit.requests_per_second),
        burst: z._default(integer(1, 20_000), TENANT_DEFAULTS.rate_limit.burst),
      }),
      TENANT_DEFAULTS.rate_limit,
    ),
  }),
);

/** The schema's output is the functions' `TenantConfig`: the build fails if the two drift apart. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<z.output<typeof TenantConfigSchema>, TenantConfig> = true;
void sameShape;
