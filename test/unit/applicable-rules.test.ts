import { describe, expect, it } from 'vitest';
import { applicableRules, type CatalogEntry } from '#shared/rules/applicable-rules.ts';
import type { SalesRule } from '#shared/rules/rule-schemas.ts';

const rule = (id: string, extra: Partial<SalesRule>): SalesRule => ({
  external_rule_id: id,
  rule_type: 'upsell',
  priority: 0,
  enabled: true,
  status: 'active',
  applies_to: { category: 'coffee' },
  action: { suggest_variant: 'big' },
  source_version: '1',
  archived_at: null,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  ...extra,
});
const line = (variant: string) => ({ external_variant_id: variant, quantity: 1, price: '1.00', currency: 'EUR' });
const catalog = new Map<string, CatalogEntry>([
  ['beans', { external_product_id: 'p-beans', category: 'coffee/beans', archived: false }],
  ['mug', { external_product_id: 'p-mug', category: 'kitchen', archived: false }],
  ['tea', { external_product_id: 'p-tea', category: 'coffeehouse/tea', archived: false }],
]);
const order = { items: [line('beans'), line('mug'), line('tea'), line('unknown')] };

describe('applicableRules', () => {
  it('matches by category path prefix on whole segments, product id or variant id, and lists the matching lines', () => {
    const result = applicableRules(order, catalog, [
      rule('by-category', {}),
      rule('by-product', { applies_to: { external_product_ids: ['p-mug'] } }),
      rule('by-variant', { applies_to: { external_variant_ids: ['unknown', 'tea'] } }),
    ]);
    expect(Object.fromEntries(result.map((r) => [r.rule.external_rule_id, r.lines]))).toEqual({
      'by-category': [0],
      'by-product': [1],
      'by-variant': [2, 3],
    });
  });

  it('leaves out disabled, archived and non-matching rules, and orders by priority, then id', () => {
    const result = applicableRules(order, catalog, [
      rule('b-low', { priority: 1 }),
      rule('a-low', { priority: 1 }),
      rule('high', { priority: 50 }),
      rule('off', { enabled: false, priority: 99 }),
      rule('gone', { status: 'archived', priority: 99 }),
      rule('nothing', { applies_to: { category: 'garden' }, priority: 99 }),
    ]);
    expect(result.map((r) => r.rule.external_rule_id)).toEqual(['high', 'a-low', 'b-low']);
  });

  it('a variant the catalog does not know matches only by its own id', () => {
    const result = applicableRules({ items: [line('ghost')] }, catalog, [
      rule('cat', { applies_to: { category: 'coffee' } }),
      rule('id', { applies_to: { external_variant_ids: ['ghost'] } }),
    ]);
    expect(result.map((r) => r.rule.external_rule_id)).toEqual(['id']);
  });
});
