import { describe, expect, it } from 'vitest';
import { MAX_SALES_RULES } from '#shared/api/limits.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { call, newTenant } from '../support/stack.ts';

const upsell = (extra: Record<string, unknown> = {}) => ({
  rule_type: 'upsell',
  priority: 10,
  enabled: true,
  applies_to: { category: 'coffee' },
  action: { suggest_variant: 'coffee-1kg' },
  source_version: '1',
  ...extra,
});

describe('sales rules', () => {
  it('upserts each rule type, reads it back, lists with the enabled filter, and archives it out of the list', async () => {
    const key = await newTenant();
    const bodies: Record<string, Record<string, unknown>> = {
      'r-upsell': upsell(),
      'r-cross': upsell({ rule_type: 'cross_sell', action: { suggest_variant: 'filters', quantity: 2 }, enabled: false }),
      'r-repl': upsell({ rule_type: 'replacement', applies_to: { external_variant_ids: ['old-1'] }, action: { replacement_variant: 'new-1' } }),
      'r-qty': upsell({ rule_type: 'quantity_constraint', applies_to: { external_product_ids: ['p1', 'p2'] }, action: { max_quantity: 5 } }),
      'r-price': upsell({ rule_type: 'price_constraint', action: { currency: 'JPY', min_price: '100' } }),
    };
    for (const [id, body] of Object.entries(bodies)) {
      const res = await call(key, 'PUT', `/sales-rules/${id}`, { body });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ external_rule_id: id, outcome: 'upserted', enabled: body.enabled });
    }
    expect((await call(key, 'PUT', '/sales-rules/r-upsell', { body: upsell() })).body.outcome).toBe('unchanged');
    const rule = await call(key, 'GET', '/sales-rules/r-cross');
    expect(rule.body).toMatchObject({ rule_type: 'cross_sell', enabled: false, status: 'active', action: { suggest_variant: 'filters', quantity: 2 } });

    const ids = async (query: Record<string, string> = {}) =>
      (await call(key, 'GET', '/sales-rules', { query })).body.data.map((r: { external_rule_id: string }) => r.external_rule_id);
    expect(await ids()).toEqual(['r-cross', 'r-price', 'r-qty', 'r-repl', 'r-upsell']);
    expect(await ids({ enabled: 'false' })).toEqual(['r-cross']);
    expect(await ids({ enabled: 'true', limit: '2' })).toEqual(['r-price', 'r-qty']);

    const archived = await call(key, 'DELETE', '/sales-rules/r-price');
    expect(archived.body).toMatchObject({ status: 'archived', archived_at: expect.any(String) });
    expect(await ids()).toEqual(['r-cross', 'r-qty', 'r-repl', 'r-upsell']);
    expect((await call(key, 'DELETE', '/sales-rules/nope')).status).toBe(404);
  });

  it('validates the action for its type and limits applies_to to 100 conditions, with pointers', async () => {
    const key = await newTenant();
    const wrongAction = await call(key, 'PUT', '/sales-rules/x', { body: upsell({ rule_type: 'quantity_constraint', action: { suggest_variant: 'a' } }) });
    expect(wrongAction.status).toBe(422);
    expect(wrongAction.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/action/suggest_variant');
    const badPrice = await call(key, 'PUT', '/sales-rules/x', {
      body: upsell({ rule_type: 'price_constraint', action: { currency: 'JPY', max_price: '1.5' } }),
    });
    expect(badPrice.body.errors).toEqual([{ pointer: '/action/max_price', message: 'has more than the 0 decimal places of JPY' }]);
    const unknownType = await call(key, 'PUT', '/sales-rules/x', { body: upsell({ rule_type: 'discount' }) });
    expect(unknownType.body.errors[0].pointer).toBe('/rule_type');
    const ids = Array.from({ length: 100 }, (_, i) => `v${i}`);
    const hundred = await call(key, 'PUT', '/sales-rules/x', { body: upsell({ applies_to: { external_variant_ids: ids } }) });
    expect(hundred.status).toBe(200);
    const tooMany = await call(key, 'PUT', '/sales-rules/y', { body: upsell({ applies_to: { category: 'a', external_variant_ids: ids } }) });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors).toEqual([{ pointer: '/applies_to', message: 'holds 101 conditions; at most 100' }]);
  });

  it(`keeps at most ${MAX_SALES_RULES} rules that are not archived: one more is 409 limit_reached, an update of one is not, and archiving makes room`, async () => {
    const key = await newTenant({ config: { rate_limit: { requests_per_second: 1000, burst: 1000 } } });
    const ids = Array.from({ length: MAX_SALES_RULES }, (_, i) => `r-${i}`);
    const answers = await mapWithConcurrency(ids, 8, (id) => call(key, 'PUT', `/sales-rules/${id}`, { body: upsell() }));
    expect(answers.filter((res) => res.status !== 200)).toEqual([]);
    const over = await call(key, 'PUT', '/sales-rules/one-too-many', { body: upsell() });
    expect([over.status, over.body.code]).toEqual([409, 'limit_reached']);
    expect(over.body.detail).toContain(`at most ${MAX_SALES_RULES} sales rules`);
    expect((await call(key, 'GET', '/sales-rules/one-too-many')).status).toBe(404);
    expect((await call(key, 'PUT', '/sales-rules/r-0', { body: upsell({ source_version: '2', priority: 3 }) })).status).toBe(200);
    expect((await call(key, 'DELETE', '/sales-rules/r-1')).status).toBe(200);
    expect((await call(key, 'PUT', '/sales-rules/one-too-many', { body: upsell() })).status).toBe(200);
  });
});
