/** Products as stored and as shown: pure mappings between the two, and the list filters. */

import { keys } from '../storage/keys.ts';
import { type ListSource, sourcesOf } from '../storage/pagination.ts';
import type { Condition } from '../storage/versioned-write.ts';
import { PRODUCT_STATUSES, type Product, type ProductInput } from './product-schemas.ts';

export interface StoredProduct extends Record<string, unknown> {
  external_product_id: string;
  title: string;
  category: string | null;
  status: Product['status'];
  availability: Product['availability'];
  source_version: string;
  /**
   * The variants as one JSON string: a product holds up to 100, and one string attribute is
   * far cheaper to marshal and store than 100 nested maps; nothing queries inside them.
   */
  variants_json: string;
  archived_at?: string;
  created_at: string;
  updated_at: string;
}

/** The typed reader of product items and stream images: the one place that says what a stored product is. */
export const productFromItem = (item: Record<string, unknown>): StoredProduct => item as StoredProduct;

const summaryOf = (p: Omit<Product, 'created_at' | 'archived_at'>) => ({
  external_product_id: p.external_product_id,
  title: p.title,
  category: p.category,
  status: p.status,
  availability: p.availability,
  variant_count: p.variants.length,
  source_version: p.source_version,
  updated_at: p.updated_at,
});

/** The attributes a product upsert writes (besides the version attributes and created_at). */
export function productAttributes(tenant: string, input: ProductInput, now: Date) {
  const product = {
    external_product_id: input.external_product_id,
    title: input.title,
    category: input.category ?? null,
    status: input.status,
    availability: input.availability,
    source_version: input.source_version,
    variants: input.variants,
    updated_at: now.toISOString(),
  };
  const { variants, ...rest } = product;
  return {
    entity: 'product',
    ...rest,
    variants_json: JSON.stringify(variants),
    ...keys.listEntry(tenant, 'PRODUCTS', input.external_product_id, input.external_product_id, [input.status]),
    ...keys.facetEntry(tenant, 'PRODUCTS', input.external_product_id, input.external_product_id, [input.availability, input.status]),
    list_view: summaryOf(product),
    search_text: `${input.external_product_id}\n${input.title}`.toLowerCase(),
  };
}

export const productView = (item: StoredProduct): Product => ({
  external_product_id: item.external_product_id,
  title: item.title,
  category: item.category ?? null,
  status: item.status,
  availability: item.availability,
  source_version: item.source_version,
  variants: JSON.parse(item.variants_json) as Product['variants'],
  archived_at: item.archived_at ?? null,
  created_at: item.created_at,
  updated_at: item.updated_at,
});

export interface ProductFilters {
  q?: string | undefined;
  category?: string | undefined;
  status?: Product['status'] | undefined;
  availability?: Product['availability'] | undefined;
  include_archived: boolean;
}

/**
 * The partitions a product list page reads for the filters of contract-decisions section 5:
 * status and availability are partitions of their own (an unarchived product is in its
 * status's partition of gsi1 and its availability's and status's partition of gsi3), so they
 * cost nothing to filter; `q` and `category` are filters on what those partitions hold.
 */
export function productListSources(tenant: string, f: ProductFilters): ListSource[] {
  const statuses = f.status ? [f.status] : f.include_archived ? PRODUCT_STATUSES : PRODUCT_STATUSES.filter((s) => s !== 'archived');
  const text = textFilter(f, undefined);
  if (f.availability === undefined) return statuses.flatMap((status) => sourcesOf('gsi1', keys.listShards(tenant, 'PRODUCTS', [status]), text));
  const availability = f.availability;
  return statuses.flatMap((status) =>
    status === 'archived'
      ? // Archived products leave the availability index: the rare archived-and-available list filters the archived partition.
        sourcesOf('gsi1', keys.listShards(tenant, 'PRODUCTS', [status]), textFilter(f, availability))
      : sourcesOf('gsi3', keys.facetShards(tenant, 'PRODUCTS', [availability, status]), text),
  );
}

/** `q` and `category` (and, where no partition serves it, availability) as one filter expression. */
function textFilter(f: ProductFilters, availability: string | undefined): Condition | undefined {
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (f.q !== undefined) {
    clauses.push('contains(search_text, :q)');
    values[':q'] = f.q.toLowerCase();
  }
  if (f.category !== undefined) {
    const category = f.category.replace(/\/+$/, '');
    Object.assign(names, { '#view': 'list_view', '#category': 'category' });
    clauses.push('(#view.#category = :category OR begins_with(#view.#category, :categoryPrefix))');
    values[':category'] = category;
    values[':categoryPrefix'] = `${category}/`;
  }
  if (availability !== undefined) {
    Object.assign(names, { '#view': 'list_view', '#availability': 'availability' });
    clauses.push('#view.#availability = :availability');
    values[':availability'] = availability;
  }
  if (clauses.length === 0) return undefined;
  return { ConditionExpression: clauses.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}
