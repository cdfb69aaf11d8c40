/** What an order needs before it can be called, for the suites that place orders. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { CONTACT_HORIZON_DAYS } from '#shared/orders/order-schemas.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { type BenchKey, send } from './client.ts';

/**
 * A contact time well after any run and inside the contact horizon: a later one is 422, and a
 * suite whose every order is refused measures nothing.
 */
export const CALL_LATER = new Date(Date.now() + (CONTACT_HORIZON_DAYS - 30) * 86_400_000).toISOString();

/** Events one such order makes through the sandbox dialer: five status changes, the call attempt, the result. */
export const EVENTS_PER_ORDER = 7;

/**
 * An order of one line of the variant prepareOrdering makes, by its customer `c0` unless
 * another is named; `extra` adds or replaces fields (a contact time, a priority).
 */
export const beansOrder = (
  id: string,
  { customer = 'c0', quantity = 1, ...extra }: { customer?: string; quantity?: number; [field: string]: unknown } = {},
) => ({
  order_kind: 'standard',
  external_order_id: id,
  external_customer_id: customer,
  items: [{ external_variant_id: 'beans', quantity, price: '9.99', currency: 'EUR' }],
  contact_permission: { status: 'granted' },
  source_version: '1',
  ...extra,
});

/** A product, a customer who answers, and the variant indexed (the catalog indexer writes it in the background). */
export async function prepareOrdering(baseUrl: string, key: BenchKey): Promise<void> {
  await send(baseUrl, key, 'POST', '/products/batch', {
    products: [
      { external_product_id: 'coffee', title: 'Coffee', source_version: '1', variants: [{ external_variant_id: 'beans', price: '9.99', currency: 'EUR' }] },
    ],
  });
  await send(baseUrl, key, 'PUT', '/customers/c0', {
    phone: '+4915100000000',
    locale: 'de-DE',
    consent: { status: 'granted', proof: { source: 'checkout', reference: 'r', collected_at: '2026-01-01T00:00:00Z' } },
    source_version: '1',
  });
  for (let i = 0; !(await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.variant(key.tenant, 'beans') }))).Item; i++) {
    if (i > 600) throw new Error('the variant index did not catch up');
    await new Promise((r) => setTimeout(r, 100));
  }
}
