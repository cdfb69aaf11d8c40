/**
 * Partner ids as stores have them: any 1 to 255 characters without control characters,
 * percent-encoded in paths and escaped in table keys, so that no two ids collide and no id
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
  '🚀'.repeat(255),
];

const path = (id: string) => `/products/${encodeURIComponent(id)}`;
const product = (id: string) => ({
  external_product_id: id,
  title: `title of ${id}`,
  source_version: '1',
  variants: [{ external_variant_id: `${[...id].slice(0, 250).join('')}:v`, price: '1.00', currency: 'EUR' }],
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
    const refused = await call(key, 'POST', '/products/batch', { body: { products: [product('tab\there'), product('x'.repeat(256)), product('')] } });
    expect(refused.body.results.map((r: { outcome: string }) => r.outcome)).toEqual(['rejected', 'rejected', 'rejected']);
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

  it('answers a path that is not valid percent-encoding with a 4xx, never a 5xx', async () => {
    const key = await newTenant();
    const res = await call(key, 'GET', '/products/%E0%A4%A');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});
