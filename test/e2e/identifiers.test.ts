/**
 * Partner ids as stores have them: any 1 to 255 characters without control characters (at most
 * 255 bytes in UTF-8), percent-encoded in paths and escaped in table keys, so that no two ids collide and no id
 * reaches another entity's or another tenant's items.
 */
import { describe, expect, it } from 'vitest';
import { call, newTenant } from '../support/stack.ts';

// Pairs that would collide if the key separator or its escape were not escaped.
const IDS = [
  'gid://shopify/Product/123',
  'cust/42 ü',
  'a#b',
  'a%23b',
  'a%2523b',
  '%',
  '#',
  'PRODUCT#x',
  'with space',
  'emoji 🚀☕',
  'ünïcödé-ñ',
  'x'.repeat(255),
  // The longest ids in bytes: 255 in UTF-8, and 255 that escape to three bytes each in a key.
  `${'🚀'.repeat(63)}abc`,
  '#'.repeat(255),
];
const LONGEST = (n: number) => `${'🚀'.repeat(62)}${String(n).padStart(7, '0')}`;

const path = (id: string) => `/products/${encodeURIComponent(id)}`;
const product = (id: string) => ({
  external_product_id: id,
  title: `title of ${id}`,
  source_version: '1',
  variants: [{ external_variant_id: `${[...id].slice(0, 60).join('')}:v`, price: '1.00', currency: 'EUR' }],
});

describe('partner ids', () => {
  it('accepts any id a store uses and keeps every one apart: each reads back as itself', async () => {
    const key = await newTenant();
    const batch = await call(key, 'POST', '/products/batch', { body: { products: IDS.map(product) } });
    expect(batch.status).toBe(200);
    expect(batch.body.accepted, JSON.stringify(batch.body.results.filter((r: { outcome: string }) => r.outcome !== 'created'))).toBe(IDS.length);
    for (const id of IDS) {
      const got = await call(key, 'GET', path(id));
      expect(got.status, id).toBe(200);
      expect(got.body.external_product_id).toBe(id);
      expect(got.body.title).toBe(`title of ${id}`);
    }
    const listed = await call(key, 'GET', '/products', { query: { limit: '200' } });
    expect(listed.body.data.map((p: { external_product_id: string }) => p.external_product_id).sort()).toEqual([...IDS].sort());
  });

  it("never lets one tenant's id reach another tenant's item of the same id", async () => {
    const [a, b] = [await newTenant(), await newTenant()];
    await call(a, 'POST', '/products/batch', { body: { products: [product('shared#id')] } });
    expect((await call(b, 'GET', path('shared#id'))).status).toBe(404);
  });

  it('refuses ids that cannot be partner ids in a body (422 with the pointer) and answers 404 for them in a path', async () => {
    const key = await newTenant();
    const refused = await call(key, 'POST', '/products/batch', {
      body: { products: [product('tab\there'), product('x'.repeat(256)), product(''), product('🚀'.repeat(64)), product('.'), product('..')] },
    });
    expect(refused.body.results.map((r: { outcome: string }) => r.outcome)).toEqual(Array(6).fill('rejected'));
    // A URL resolves "." and ".." segments away, so such an id could never be read back.
    expect(refused.body.results[5].errors[0]).toMatchObject({
      pointer: '/products/5/external_product_id',
      message: expect.stringMatching(/not "\." or "\.\."/),
    });
    expect(refused.body.results[3].errors[0]).toMatchObject({ pointer: '/products/3/external_product_id', message: expect.stringMatching(/255 bytes/) });
    expect(refused.body.results[0].errors[0].pointer).toBe('/products/0/external_product_id');
    for (const id of ['tab\there', 'x'.repeat(256), '\u0000']) {
      const res = await call(key, 'GET', path(id));
      expect(res.status, JSON.stringify(id)).toBe(404);
      expect(res.body.code).toBe('resource_not_found');
    }
    const delivery = await call(key, 'POST', '/webhook-deliveries/not-a-delivery-id/replay');
    expect(delivery.status).toBe(404);
    expect(delivery.body.code).toBe('resource_not_found');
  });

  it('takes an order whose every id is as long as the contract allows, with 250 such lines, and reads, lists and erases it (never a 500)', async () => {
    const key = await newTenant();
    const [orderId, customerId] = [LONGEST(1), `#${'#'.repeat(254)}`];
    const customer = {
      phone: '+4915112345670',
      locale: 'de-DE',
      consent: { status: 'granted', proof: { source: 'checkout', reference: LONGEST(2), collected_at: '2026-11-01T09:30:00Z' } },
      source_version: '1',
    };
    expect((await call(key, 'PUT', `/customers/${encodeURIComponent(customerId)}`, { body: customer })).status).toBe(200);
    const items = Array.from({ length: 250 }, (_, i) => ({ external_variant_id: LONGEST(100 + i), quantity: 1, price: '9.99', currency: 'EUR' }));
    const order = {
      order_kind: 'standard',
      external_order_id: orderId,
      external_customer_id: customerId,
      items,
      contact_permission: { status: 'granted' },
      source_version: '1',
    };
    const created = await call(key, 'POST', '/orders', { body: order });
    expect(created.status, created.text).toBe(201);
    const read = await call(key, 'GET', `/orders/${encodeURIComponent(orderId)}`);
    expect([read.status, read.body.items.length]).toEqual([200, 250]);
    const listed = await call(key, 'GET', '/orders');
    expect(listed.body.data.map((o: { external_order_id: string }) => o.external_order_id)).toEqual([orderId]);
    expect((await call(key, 'POST', `/customers/${encodeURIComponent(customerId)}/anonymize`)).status).toBe(200);
  });

  it('answers a path that is not valid percent-encoding with a 4xx, never a 5xx', async () => {
    const key = await newTenant();
    const res = await call(key, 'GET', '/products/%E0%A4%A');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});
