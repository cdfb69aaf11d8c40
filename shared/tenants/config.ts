/**
 * Tenant configuration (contract-decisions section 9): the schema the admin CLI accepts,
 * with the defaults a missing field keeps.
 */
import * as z from 'zod/mini';
import { integer, text } from '../api/zod.ts';

const hour = integer(0, 23);

export const isValidTimeZone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const MarketSchema = z.strictObject({
  country: z.string().check(z.regex(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2 country code')),
  locale_default: text(2, 35),
  calling_days: z.array(integer(1, 7)).check(z.minLength(1), z.maxLength(7)),
});

export const QuietHoursSchema = z.strictObject({
  timezone: z.string().check(z.refine(isValidTimeZone, 'an IANA time zone name')),
  dont_call_hour_start: hour,
  dont_call_hour_end: hour,
});

export const TENANT_DEFAULTS = {
  status: 'active' as const,
  markets: [] as z.infer<typeof MarketSchema>[],
  quiet_hours: { timezone: 'Europe/Berlin', dont_call_hour_start: 21, dont_call_hour_end: 8 },
  features_enabled: { upsell: true, repurchase_intent: true },
  writeback: { enabled: false },
  max_call_attempts: 3,
  rate_limit: { requests_per_second: 50, burst: 100 },
};

export const TenantConfigSchema = z.strictObject({
  status: z._default(z.enum(['active', 'suspended']), TENANT_DEFAULTS.status),
  markets: z._default(z.array(MarketSchema).check(z.maxLength(50)), TENANT_DEFAULTS.markets),
  quiet_hours: z._default(QuietHoursSchema, TENANT_DEFAULTS.quiet_hours),
  features_enabled: z._default(
    z.strictObject({ upsell: z._default(z.boolean(), true), repurchase_intent: z._default(z.boolean(), true) }),
    TENANT_DEFAULTS.features_enabled,
  ),
  writeback: z._default(z.strictObject({ enabled: z._default(z.boolean(), false) }), TENANT_DEFAULTS.writeback),
  max_call_attempts: z._default(integer(1, 10), TENANT_DEFAULTS.max_call_attempts),
  rate_limit: z._default(
    z.strictObject({
      requests_per_second: z._default(integer(1, 10_000), 50),
      burst: z._default(integer(1, 20_000), 100),
    }),
    TENANT_DEFAULTS.rate_limit,
  ),
});
export type TenantConfig = z.infer<typeof TenantConfigSchema>;

export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
