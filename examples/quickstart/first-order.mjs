// A first signed POST with the client: a product, a customer with consent, an order; then
// the order's result once the sandbox dialer has called (phone ending in 0: confirmed).
//   node examples/quickstart/first-order.mjs   (credentials from .local/credentials.json)
import { readFileSync } from 'node:fs';
import { CommerceApiError, createCommerceClient } from '@commerce-interface/client';

const dataDir = process.env.LOCAL_DATA_DIR ?? '.local';
const { base_url, key_id, secret } = JSON.parse(readFileSync(`${dataDir}/credentials.json`, 'utf8'));
const client = createCommerceClient({ baseUrl: base_url, keyId: key_id, secret });
const orderId = `qs-${Date.now().toString(36)}`;

try {
  await client.products.upsertBatch({
    products: [
      {
        external_product_id: 'qs-coffee',
        title: 'Coffee beans',
        source_version: '1',
        variants: [{ external_variant_id: 'qs-beans-250g', price: '9.99', currency: 'EUR' }],
      },
    ],
  });
  await client.customers.put('qs-customer', {
    phone: '+4915100000000',
    locale: 'de-DE',
    consent: { status: 'granted', proof: { source: 'checkout', reference: 'qs-consent-1', collected_at: '2026-11-01T09:30:00Z' } },
    source_version: '1',
  });
  const order = await client.orders.create({
    order_kind: 'standard',
    external_order_id: orderId,
    external_customer_id: 'qs-customer',
    items: [{ external_variant_id: 'qs-beans-250g', quantity: 2, price: '9.99', currency: 'EUR' }],
    contact_permission: { status: 'granted' },
    source_version: '1',
  });
  console.log(`created ${order.external_order_id}: ${order.processing_state}`);

  let current = order;
  while (!['completed', 'cancelled', 'rejected'].includes(current.processing_state)) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    current = await client.orders.get(orderId);
  }
  const result = await client.orders.result(orderId);
  console.log(`result ${orderId}: ${result.business_outcome}, total ${result.final_order_snapshot.total} ${result.final_order_snapshot.currency}`);
} catch (error) {
  if (!(error instanceof CommerceApiError)) throw error;
  console.error(`${error.status} ${error.code} ${JSON.stringify(error.errors)} (request ${error.requestId})`);
  process.exitCode = 1;
}
