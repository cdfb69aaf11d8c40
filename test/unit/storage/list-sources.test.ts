/**
 * Which index partitions a product list page reads: a filter with a fixed set of values is a
 * partition of its own (no filter expression, so a page reads only what it returns); only free
 * text, and availability among archived products, are filtered.
 */
import { describe, expect, it } from 'vitest';
import { productListSources } from '#shared/catalog/products.ts';
import { FACET_SHARDS, LIST_SHARDS } from '#shared/storage/keys.ts';

const base = { include_archived: false } as const;

describe('product list sources', () => {
  it('reads the unarchived status partitions, unfiltered, by default', () => {
    const sources = productListSources('t1', base);
    expect(sources).toHaveLength(2 * LIST_SHARDS.PRODUCTS);
    expect(sources.every((s) => s.index === 'gsi1' && s.filter === undefined)).toBe(true);
    expect(new Set(sources.map((s) => s.partition.split('#')[3]))).toEqual(new Set(['active', 'inactive']));
  });

  it('reads one status partition for a status, and the archived one too only when asked', () => {
    expect(productListSources('t1', { ...base, status: 'inactive' }).map((s) => s.partition.split('#')[3])).toEqual(
      Array(LIST_SHARDS.PRODUCTS).fill('inactive'),
    );
    expect(productListSources('t1', { include_archived: true })).toHaveLength(3 * LIST_SHARDS.PRODUCTS);
  });

  it('reads availability partitions of the facet index without a filter, with a status or without', () => {
    const both = productListSources('t1', { ...base, availability: 'preorder', status: 'active' });
    expect(both).toHaveLength(FACET_SHARDS.PRODUCTS);
    expect(both.every((s) => s.index === 'gsi3' && s.filter === undefined && s.partition.includes('#AV#preorder#active#'))).toBe(true);
    expect(productListSources('t1', { ...base, availability: 'preorder' })).toHaveLength(2 * FACET_SHARDS.PRODUCTS);
  });

  it('filters only what no partition serves: free text, and availability among archived products', () => {
    const text = productListSources('t1', { ...base, q: 'Blend', category: 'food' });
    expect(text.every((s) => s.filter?.ConditionExpression.includes('contains(search_text, :q)'))).toBe(true);
    expect(text[0]!.filter!.ExpressionAttributeValues[':q']).toBe('blend');
    const archived = productListSources('t1', { ...base, status: 'archived', availability: 'in_stock' });
    expect(archived.every((s) => s.index === 'gsi1' && s.partition.includes('#PRODUCTS#archived#'))).toBe(true);
    expect(archived[0]!.filter!.ExpressionAttributeValues[':availability']).toBe('in_stock');
  });

  it('never reads another tenant', () => {
    expect(productListSources('t1', { include_archived: true, availability: 'backorder' }).every((s) => s.partition.startsWith('T#t1#'))).toBe(true);
  });
});
