/** Customers as stored and as shown: the sanitized view never carries personal data. */
import type { Customer, CustomerInput } from './customer-schemas.ts';

export interface StoredCustomer extends Record<string, unknown> {
  external_customer_id: string;
  phone?: string;
  locale: string;
  consent: { status: 'granted' | 'withdrawn'; proof?: { source: string; reference?: string; collected_at: string } };
  source_version: string;
  anonymized_at?: string;
  created_at: string;
  updated_at: string;
}

/** The typed reader of customer items and stream images. */
export const customerFromItem = (item: Record<string, unknown>): StoredCustomer => item as StoredCustomer;

/** `+49******12`: the country code's first digits and the last two; the length stays hidden. */
export function maskPhone(phone: string): string {
  return `${phone.slice(0, 3)}******${phone.slice(-2)}`;
}

export function customerAttributes(id: string, input: CustomerInput, now: Date) {
  return {
    entity: 'customer',
    external_customer_id: id,
    phone: input.phone,
    locale: input.locale,
    consent: input.consent,
    updated_at: now.toISOString(),
  };
}

export const customerView = (item: StoredCustomer): Customer => ({
  external_customer_id: item.external_customer_id,
  phone_masked: item.phone ? maskPhone(item.phone) : null,
  locale: item.locale,
  consent: {
    status: item.consent.status,
    proof: item.consent.proof ? { source: item.consent.proof.source, collected_at: item.consent.proof.collected_at } : null,
  },
  source_version: item.source_version,
  anonymized_at: item.anonymized_at ?? null,
  created_at: item.created_at,
  updated_at: item.updated_at,
});
