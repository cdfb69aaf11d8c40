/**
 * Who a live tenant may call: only mobile and fixed-line numbers of its markets' countries, as
 * libphonenumber-js types them; the number's country, not the customer's locale, picks the market.
 */
import { describe, expect, it } from 'vitest';
import { callableCountryOf, destinationAllowed, marketOf } from '#shared/orders/destination.ts';
import { TenantConfigSchema } from '#shared/tenants/config.ts';

const market = (country: string, locale_default: string) => ({ country, locale_default, calling_days: [1, 2, 3, 4, 5] });
const live = TenantConfigSchema.parse({ mode: 'live', markets: [market('DE', 'de-DE'), market('AT', 'de-AT')] });
const sandbox = TenantConfigSchema.parse({ markets: [market('DE', 'de-DE'), market('AT', 'de-AT')] });

describe('who may be called', () => {
  it('types numbers a person answers, and no other', () => {
    expect(callableCountryOf('+4915123456789')).toBe('DE'); // a German mobile
    expect(callableCountryOf('+493012345678')).toBe('DE'); // a Berlin landline
    expect(callableCountryOf('+436641234567')).toBe('AT'); // an Austrian mobile
    expect(callableCountryOf('+4990012345678')).toBeUndefined(); // German premium rate (0900)
    expect(callableCountryOf('+498001234567')).toBeUndefined(); // German freephone (0800)
    expect(callableCountryOf('+881612345678')).toBeUndefined(); // a satellite phone (Iridium)
    expect(callableCountryOf('+491')).toBeUndefined(); // not a number at all
  });

  it("lets a live tenant call only its markets' countries, in the market of the number", () => {
    expect(destinationAllowed(live, { phone: '+4915123456789' })).toBe(true);
    expect(destinationAllowed(live, { phone: '+33612345678' })).toBe(false); // a French mobile: no French market
    expect(destinationAllowed(live, { phone: '+4990012345678' })).toBe(false);
    // An Austrian number with a German locale is called as an Austrian customer (its hours, its caller id).
    expect(marketOf(live, { phone: '+436641234567', locale: 'de-DE' })?.country).toBe('AT');
    expect(marketOf(live, { phone: '+33612345678', locale: 'de-DE' })).toBeUndefined();
  });

  it("keeps the sandbox's simulated customers callable, in the market of their number, else of their locale", () => {
    expect(destinationAllowed(sandbox, { phone: '+33612345678' })).toBe(true);
    expect(marketOf(sandbox, { phone: '+436641234567', locale: 'de-DE' })?.country).toBe('AT');
    expect(marketOf(sandbox, { phone: '+33612345678', locale: 'de-AT' })?.country).toBe('AT');
    expect(marketOf(sandbox, { phone: '+33612345678' })?.country).toBe('DE');
  });
});
