import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TenantConfigSchema } from '#shared/tenants/config.ts';
import { type StoredTenantConfig, withTenantDefaults } from '#shared/tenants/tenant-config.ts';

/** Any field may be missing (a configuration stored before the field existed), at any level that has defaults. */
const partial = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) => fc.record(fields, { requiredKeys: [] });
const hour = fc.integer({ min: 0, max: 23 });
const storedConfig: fc.Arbitrary<StoredTenantConfig> = partial({
  status: fc.constantFrom('active' as const, 'suspended' as const),
  markets: fc.array(
    fc.record({
      country: fc.constantFrom('DE', 'AT', 'FR', 'US'),
      locale_default: fc.constantFrom('de-DE', 'de-AT', 'fr-FR', 'en-US'),
      calling_days: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
    }),
    { maxLength: 3 },
  ),
  quiet_hours: fc.record({ timezone: fc.constantFrom('Europe/Berlin', 'UTC', 'America/New_York'), dont_call_hour_start: hour, dont_call_hour_end: hour }),
  features_enabled: partial({ upsell: fc.boolean(), repurchase_intent: fc.boolean() }),
  writeback: partial({ enabled: fc.boolean() }),
  max_call_attempts: fc.integer({ min: 1, max: 10 }),
  rate_limit: partial({ requests_per_second: fc.integer({ min: 1, max: 10_000 }), burst: fc.integer({ min: 1, max: 20_000 }) }),
});

describe('a stored tenant configuration as the functions read it', () => {
  it('fills every missing field exactly as the schema its writer validated with does', () => {
    fc.assert(
      fc.property(storedConfig, (stored) => {
        expect(withTenantDefaults(stored)).toEqual(TenantConfigSchema.parse(stored));
      }),
      { numRuns: 500 },
    );
  });

  it('gives a tenant with nothing stored the defaults: active, upsell on, write-back off, no market yet', () => {
    expect(withTenantDefaults()).toEqual(TenantConfigSchema.parse({}));
    expect(withTenantDefaults()).toMatchObject({ status: 'active', markets: [], features_enabled: { upsell: true }, writeback: { enabled: false } });
  });

  it('never hands out the defaults themselves: changing one tenant’s configuration leaves the next one’s alone', () => {
    const first = withTenantDefaults();
    first.quiet_hours.dont_call_hour_start = 0;
    first.rate_limit.burst = 1;
    expect(withTenantDefaults()).toEqual(TenantConfigSchema.parse({}));
  });
});
