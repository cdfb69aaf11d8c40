/**
 * Who may be called, and from which market (contract-decisions section 11): a live tenant calls
 * only a mobile or fixed-line number of one of its markets' countries, typed by libphonenumber-js
 * (premium-rate, shared-cost, satellite, VoIP and personal numbers are never dialled: toll fraud
 * lives there); the number's country, not the customer's locale, picks the market whose calling
 * days, hours, caller id and language apply. A sandbox tenant's simulated customer may have any
 * number: its market is the number's country's where the tenant has one, else its locale's.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Market, TenantConfig } from '../tenants/tenant-config.ts';

/** The kinds of number a person answers. */
const CALLABLE_TYPES: ReadonlySet<string> = new Set(['MOBILE', 'FIXED_LINE', 'FIXED_LINE_OR_MOBILE']);

export interface CustomerContact {
  phone?: string | null | undefined;
  locale?: string | null | undefined;
}

/** The country (ISO 3166-1 alpha-2) of a number a person answers; undefined for any other number. */
export function callableCountryOf(phone: string): string | undefined {
  const parsed = parsePhoneNumberFromString(phone);
  const type = parsed?.getType();
  return parsed?.country && type && CALLABLE_TYPES.has(type) ? parsed.country : undefined;
}

/** The market a call to `customer` belongs to; undefined where the tenant has none for them (a live tenant: not called). */
export function marketOf(config: TenantConfig, customer: CustomerContact | undefined): Market | undefined {
  if (config.mode === 'live') {
    const country = customer?.phone ? callableCountryOf(customer.phone) : undefined;
    return country ? config.markets.find((m) => m.country === country) : undefined;
  }
  const numberCountry = customer?.phone ? parsePhoneNumberFromString(customer.phone)?.country : undefined;
  const localeCountry = customer?.locale?.split('-')[1]?.toUpperCase();
  return config.markets.find((m) => m.country === numberCountry) ?? config.markets.find((m) => m.country === localeCountry) ?? config.markets[0];
}

/** Whether a live tenant may call this customer's number at all (a sandbox tenant's simulated customers always may). */
export function destinationAllowed(config: TenantConfig, customer: CustomerContact | undefined): boolean {
  // A tenant without markets is rejected for that (no_market_configured) where its order is scheduled.
  return config.mode !== 'live' || config.markets.length === 0 || marketOf(config, customer) !== undefined;
}
