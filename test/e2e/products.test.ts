import { describe, expect, it } from 'vitest';
import { call, newTenant, type TestKey } from '../support/stack.ts';

const variant = (id: string, price = '1', currency = 'EUR') => ({ external_variant_id: id, price, currency });
const product = (id: string, extra: Record<string, unknown> = {}) => ({
  external_product_id: id,
  title: `Product ${id}`,
  source_version: '1',
  variants: [variant(`${id}-v`)],
  ...extra,
});
const batch = (key: TestKey, products: unknown[]) => call(key, 'POST', '/products/batch', { body: { products } });

/** Walks a list to its end, returning every item and the number of pages. */
async function walk(key: TestKey, query: Record<string, string>) {
  const seen: { external_product_id: string; category: string | null; status: string }[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const res = await call(key, 'GET', '/products', { query: { ...query, ...(cursor ? { cursor } : {}) } });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(Number(query.limit));
    seen.push(...res.body.data);
    cursor = res.body.next_cursor ?? undefined;
    pages++;
  } while (cursor);
  return { ids: seen.map((p) => p.external_product_id), items: seen, pages };
}

describe('POST /products/batch', () => {
  it('takes 500 products with as many variants as fit in 2 MiB (one with 100) through the gateway, and refuses 501 products with 413', async () => {
    const key = await newTenant();
    // 500 × 100 variants cannot fit: a minimal variant is ~57 bytes of JSON, so 50,000 of them are ~2.8 MB.
    // 500 products × 62 variants (and one × 100) is just under the 2 MiB limit.
    const products = Array.from({ length: 500 }, (_, p) =>
      product(`p${p}`, { variants: Array.from({ length: p === 0 ? 100 : 62 }, (_, v) => variant(`p${p}v${v}`, `${v}.5`)) }),
    );
    const body = JSON.stringify({ products });
    expect(Buffer.byteLength(body)).toBeGreaterThan(1.9 * 1024 * 1024);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(2 * 1024 * 1024);
    const res = await call(key, 'POST', '/products/batch', { rawBody: body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: 500, rejected: 0 });
    expect(res.body.results.every((r: { outcome: string }) => r.outcome === 'upserted')).toBe(true);
    const first = await call(key, 'GET', '/products/p0');
    expect(first.body.variants).toHaveLength(100);
    expect(first.body.variants[99]).toEqual({ external_variant_id: 'p0v99', price: '99.5', currency: 'EUR' });

    const tooMany = await batch(
      key,
      Array.from({ length: 501 }, (_, p) => product(`x${p}`)),
    );
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.code).toBe('payload_too_large');
    expect((await call(key, 'GET', '/products/x0')).status).toBe(404);
  });

  it('a batch mixing valid, stale and invalid products answers per product and writes only the valid ones', async () => {
    const key = await newTenant();
    await batch(key, [product('stale', { source_version: '5', title: 'Stored' }), product('same', { source_version: '3' })]);
    const res = await batch(key, [
      product('ok-1'),
      product('stale', { source_version: '4', title: 'Older' }),
      product('bad-price', { variants: [variant('v', '1.999', 'EUR')] }),
      product('bad-currency', { variants: [variant('v', '1', 'EURO')] }),
      product('same', { source_version: '3' }),
      product('ok-1', { source_version: '2' }),
      { title: 'no id' },
      product('ok-2', { variants: [variant('yen', '120', 'JPY'), variant('dinar', '1.125', 'BHD')] }),
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: 3, rejected: 5 });
    const outcome = (i: number) => res.body.results[i];
    expect(outcome(0)).toMatchObject({ index: 0, external_product_id: 'ok-1', outcome: 'upserted' });
    expect(outcome(1)).toMatchObject({ outcome: 'rejected', errors: [{ code: 'stale_source_version', pointer: '/products/1/source_version' }] });
    expect(outcome(2).errors).toEqual([
      { code: 'validation_failed', pointer: '/products/2/variants/0/price', message: expect.stringContaining('2 decimal places') },
    ]);
    expect(outcome(3).errors).toEqual([{ code: 'validation_failed', pointer: '/products/3/variants/0/currency', message: expect.any(String) }]);
    expect(outcome(4)).toMatchObject({ external_product_id: 'same', outcome: 'unchanged' });
    expect(outcome(5).errors[0]).toMatchObject({ pointer: '/products/5/external_product_id', message: expect.stringContaining('/products/0') });
    expect(outcome(6)).toMatchObject({ external_product_id: null, outcome: 'rejected' });
    expect(
      outcome(6)
        .errors.map((e: { pointer: string }) => e.pointer)
        .sort(),
    ).toEqual(['/products/6/external_product_id', '/products/6/source_version', '/products/6/variants']);
    expect(outcome(7)).toMatchObject({ external_product_id: 'ok-2', outcome: 'upserted' });

    expect((await call(key, 'GET', '/products/stale')).body).toMatchObject({ title: 'Stored', source_version: '5' });
    expect((await call(key, 'GET', '/products/ok-1')).body.source_version).toBe('1');
    for (const missing of ['bad-price', 'bad-currency']) expect((await call(key, 'GET', `/products/${missing}`)).status).toBe(404);
  });

  it('archives with a tombstone, keeps it out of lists, and revives it with a newer source_version', async () => {
    const key = await newTenant();
    await batch(key, [product('a', { source_version: '1' })]);
    const archived = await call(key, 'DELETE', '/products/a');
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ external_product_id: 'a', status: 'archived', archived_at: expect.any(String) });
    expect((await call(key, 'DELETE', '/products/a')).body.archived_at).toBe(archived.body.archived_at);
    expect((await call(key, 'GET', '/products/a')).body.status).toBe('archived');
    expect((await call(key, 'GET', '/products')).body.data).toEqual([]);
    expect((await call(key, 'GET', '/products', { query: { include_archived: 'true' } })).body.data).toHaveLength(1);
    expect((await batch(key, [product('a', { source_version: '1' })])).body.results[0].outcome).toBe('unchanged');
    expect((await batch(key, [product('a', { source_version: '2' })])).body.results[0].outcome).toBe('upserted');
    const revived = (await call(key, 'GET', '/products/a')).body;
    expect(revived).toMatchObject({ status: 'active', archived_at: null, source_version: '2', created_at: archived.body.created_at });
    expect(Date.parse(revived.updated_at)).toBeGreaterThanOrEqual(Date.parse(archived.body.archived_at));
    expect((await call(key, 'DELETE', '/products/never')).status).toBe(404);
  });
});

describe('GET /products pagination and filters', () => {
  const CATEGORIES = ['food/fruit', 'food/vegetables', 'foodstuff', 'drinks/coffee'];
  const catalog = Array.from({ length: 1234 }, (_, i) => ({
    id: `sku-${String((i * 7919) % 1234).padStart(4, '0')}`,
    category: CATEGORIES[i % 4]!,
    title: i % 5 === 0 ? `Organic Thing ${i}` : `Thing ${i}`,
    availability: i % 3 === 0 ? 'out_of_stock' : 'in_stock',
  }));
  let key: TestKey;

  // About 330 signed list requests, each organic page scanning up to 1,000 index entries for its
  // free-text match, beside the indexing of 1,234 products: 18 s on a quiet two-core machine and
  // 30–60 s on a busy one, so the default 60 s is no budget for it.
  it('walks a 1,234-product catalog with every limit in {1, 7, 50, 200}: each product exactly once, filters applied', { timeout: 180_000 }, async () => {
    key = await newTenant();
    for (let i = 0; i < catalog.length; i += 500) {
      const res = await batch(
        key,
        catalog.slice(i, i + 500).map((p) => product(p.id, { title: p.title, category: p.category, availability: p.availability })),
      );
      expect(res.body.rejected).toBe(0);
    }
    const everything = catalog.map((p) => p.id).sort();
    const food = catalog
      .filter((p) => p.category.startsWith('food/'))
      .map((p) => p.id)
      .sort();
    const organicInStock = catalog
      .filter((p) => p.title.includes('Organic') && p.availability === 'in_stock')
      .map((p) => p.id)
      .sort();

    // Walks run side by side; a whole-catalog walk at limits 1 and 7 would only repeat what
    // the filtered walks at those limits show, at 1,234 and 177 requests.
    await Promise.all(
      ['1', '7', '50', '200'].map(async (limit) => {
        const organic = await walk(key, { limit, q: 'organic', availability: 'in_stock' });
        expect(organic.ids).toEqual(organicInStock);
        if (limit === '1') return;
        const byCategory = await walk(key, { limit, category: 'food' });
        expect(byCategory.ids).toEqual(food);
        if (limit === '7') return;
        const all = await walk(key, { limit });
        expect(all.ids).toEqual(everything);
        expect(all.pages).toBe(Math.ceil(1234 / Number(limit)));
      }),
    );
  });

  it('refuses a tampered cursor, a cursor of other filters and another tenant, and a limit outside 1..200 with 422', async () => {
    const first = await call(key, 'GET', '/products', { query: { limit: '2', category: 'food' } });
    const cursor: string = first.body.next_cursor;
    const [payload, mac] = cursor.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ after: 'sku-0000' })).toString('base64url');
    const other = await newTenant();
    const refusals = [
      await call(key, 'GET', '/products', { query: { limit: '2', category: 'food', cursor: `${forged}.${mac}` } }),
      await call(key, 'GET', '/products', { query: { limit: '2', category: 'food', cursor: `${payload}.${mac.slice(1)}A` } }),
      await call(key, 'GET', '/products', { query: { limit: '2', category: 'drinks', cursor } }),
      await call(other, 'GET', '/products', { query: { limit: '2', category: 'food', cursor } }),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([{ pointer: 'query:cursor', message: expect.any(String) }]);
    }
    for (const limit of ['0', '201', 'ten', '1.5']) {
      const res = await call(key, 'GET', '/products', { query: { limit } });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([{ pointer: 'query:limit', message: 'must be an integer from 1 to 200' }]);
    }
  });
});
