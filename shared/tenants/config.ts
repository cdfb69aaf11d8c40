/**
 * Tenant configuration (contract-decisions section 9): the schema the admin CLI accepts,
 * with the defaults a missing field keeps.
 */
import * as z from 'zod';

const hour = z.number().int().min(0).max(23);

export const isValidTimeZone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const MarketSchema = z.strictObject({
  country: z.string().regex(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2 country code'),
  locale_default: z.string().min(2).max(35),
  calling_days: z.array(z.number().int().min(1).max(7)).min(1).max(7),
});

export const QuietHoursSchema = z.strictObject({
  timezone: z.string().refine(isValidTimeZone, 'an IANA time zone name'),
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
  status: z.enum(['active', 'suspended']).default(TENANT_DEFAULTS.status),
  markets: z.array(MarketSchema).max(50).default(TENANT_DEFAULTS.markets),
  quiet_hours: QuietHoursSchema.default(TENANT_DEFAULTS.quiet_hours),
  features_enabled: z
    .strictObject({ upsell: z.boolean().default(true), repurchase_intent: z.boolean().default(true) })
    .default(TENANT_DEFAULTS.features_enabled),
  writeback: z.strictObject({ enabled: z.boolean().default(false) }).default(TENANT_DEFAULTS.writeback),
  max_call_attempts: z.number().int().min(1).max(10).default(TENANT_DEFAULTS.max_call_attempts),
  rate_limit: z
    .strictObject({
      requests_per_second: z.number().int().min(1).max(10_000).default(50),
      burst: z.number().int().min(1).max(20_000).default(100),
    })
    .default(TENANT_DEFAULTS.rate_limit),
});
export type TenantConfig = z.infer<typeof TenantConfigSchema>;

export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
