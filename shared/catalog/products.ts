/** Products as stored and as shown: pure mappings between the two, and the list filters. */
import type { Condition } from '../storage/versioned-write.ts';
import { keys } from '../storage/keys.ts';
import type { Product, ProductInput } from './product-schemas.ts';

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
    ...keys.listEntry(tenant, 'PRODUCTS', input.external_product_id, input.external_product_id),
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

/** The list filters of contract-decisions section 5 as one DynamoDB filter expression. */
export function productFilter(f: ProductFilters): Condition | undefined {
  const clauses: string[] = [];
  const names: Record<string, string> = { '#view': 'list_view' };
  const values: Record<string, unknown> = {};
  if (f.q !== undefined) {
    clauses.push('contains(search_text, :q)');
    values[':q'] = f.q.toLowerCase();
  }
  if (f.category !== undefined) {
    const category = f.category.replace(/\/+$/, '');
    names['#category'] = 'category';
    clauses.push('(#view.#category = :category OR begins_with(#view.#category, :categoryPrefix))');
    values[':category'] = category;
    values[':categoryPrefix'] = `${category}/`;
  }
  if (f.status !== undefined || !f.include_archived) names['#status'] = 'status';
  if (f.status !== undefined) {
    clauses.push('#view.#status = :status');
    values[':status'] = f.status;
  } else if (!f.include_archived) {
    clauses.push('#view.#status <> :archived');
    values[':archived'] = 'archived';
  }
  if (f.availability !== undefined) {
    names['#availability'] = 'availability';
    clauses.push('#view.#availability = :availability');
    values[':availability'] = f.availability;
  }
  if (clauses.length === 0) return undefined;
  const expression = clauses.join(' AND ');
  const used = Object.fromEntries(Object.entries(names).filter(([name]) => expression.includes(name)));
  return { ConditionExpression: expression, ExpressionAttributeNames: used, ExpressionAttributeValues: values };
}
