/**
 * Configuration edits cannot flip a tenant by accident: a file changes only the fields it names,
 * every change is listed, and a live configuration real customers could not be called under is refused.
 */
import { describe, expect, it } from 'vitest';
import { TenantConfigSchema } from '#shared/tenants/config.ts';
import { configChanges, liveConfigProblems, mergeConfig } from '#shared/tenants/config-writer.ts';

const liveTenant = TenantConfigSchema.parse({
  mode: 'live',
  display_name: 'Kaffee',
  markets: [{ country: 'DE', locale_default: 'de-DE', calling_days: [1, 2, 3, 4, 5] }],
  features_enabled: { upsell: false, repurchase_intent: true },
});
const connect = { callPlatform: 'connect', callerIdCountries: ['DE', 'AT'] };

describe('editing a tenant configuration', () => {
  it('suspends a live tenant with a file of one field, and changes nothing else', () => {
    const after = TenantConfigSchema.parse(mergeConfig(liveTenant as never, { status: 'suspended' }));
    expect(after).toEqual({ ...liveTenant, status: 'suspended' });
    expect(configChanges(liveTenant, after)).toEqual(['status: "active" → "suspended"']);
  });

  it('merges objects field by field and replaces lists whole', () => {
    const after = TenantConfigSchema.parse(
      mergeConfig(liveTenant as never, { features_enabled: { upsell: true }, markets: [{ country: 'AT', locale_default: 'de-AT', calling_days: [1] }] }),
    );
    expect(after.features_enabled).toEqual({ upsell: true, repurchase_intent: true });
    expect(after.markets.map((m) => m.country)).toEqual(['AT']);
    expect(configChanges(liveTenant, after)).toContain('features_enabled.upsell: false → true');
  });

  it('refuses a live configuration whose customers would see another country’s number, or be called again within minutes', () => {
    expect(liveConfigProblems('acme', liveTenant, connect)).toEqual([]);
    const french = { ...liveTenant, markets: [...liveTenant.markets, { country: 'FR', locale_default: 'fr-FR', calling_days: [1] }] };
    expect(liveConfigProblems('acme', french, connect)).toEqual([expect.stringMatching(/^market FR has no caller id/)]);
    expect(liveConfigProblems('acme', { ...liveTenant, call_retry_delay_seconds: 60 }, connect)).toEqual([expect.stringMatching(/no sooner than 600 s/)]);
    expect(liveConfigProblems('acme', liveTenant, { callPlatform: 'sandbox' })).toEqual([expect.stringMatching(/cannot be live on this deployment/)]);
    // A sandbox tenant may be called back at once and needs no caller id.
    expect(liveConfigProblems('acme', { ...french, mode: 'sandbox', call_retry_delay_seconds: 0 }, connect)).toEqual([]);
  });
});
