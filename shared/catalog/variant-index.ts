/**
 * Orders name variants, the catalog stores products: this index maps a variant id to its
 * product. It is written from the table's stream when a product gains variants (off the
 * request path: a 500 × 100 batch would otherwise write 50,000 more items inside the 10 s
 * limit), so it trails a catalog write by the stream's delay. Entries are never deleted: a
 * reader checks the product still holds the variant, so a moved or removed variant is seen
 * as it is now.
 */

import type { CatalogEntry } from '../rules/applicable-rules.ts';
import { batchGet, batchPut } from '../storage/batch.ts';
import { keys } from '../storage/keys.ts';
import type { Product } from './product-schemas.ts';
import type { StoredProduct } from './products.ts';

const variantIds = (product: Pick<StoredProduct, 'variants_json'> | undefined): string[] =>
  product ? (JSON.parse(product.variants_json) as Product['variants']).map((v) => v.external_variant_id) : [];

/** Index entries for the variants the new image has and the old one had not. */
export function newVariantEntries(tenant: string, oldImage: StoredProduct | undefined, newImage: StoredProduct) {
  const known = new Set(variantIds(oldImage));
  return variantIds(newImage)
    .filter((id) => !known.has(id))
    .map((id) => ({ ...keys.variant(tenant, id), entity: 'variant_index', external_product_id: newImage.external_product_id }));
}

export const indexNewVariants = (tenant: string, oldImage: StoredProduct | undefined, newImage: StoredProduct) =>
  batchPut(newVariantEntries(tenant, oldImage, newImage));

/** A variant as order processing reads it: its product's entry, its price and quantity bounds. */
export interface ResolvedVariant extends CatalogEntry {
  external_variant_id: string;
  /** Its product's title: what the customer hears read back. */
  title?: string;
  price: string;
  currency: string;
  min_quantity?: number;
  max_quantity?: number;
}

/** What the catalog holds now for each variant id (absent: unknown). */
export async function resolveVariants(tenant: string, ids: readonly string[]): Promise<Map<string, ResolvedVariant>> {
  const entries = await batchGet<{ pk: string; external_product_id: string }>(ids.map((id) => keys.variant(tenant, id)));
  const products = await batchGet<StoredProduct>(entries.map((e) => keys.product(tenant, e.external_product_id)));
  const wanted = new Set(ids);
  const resolved = new Map<string, ResolvedVariant>();
  for (const product of products) {
    for (const v of JSON.parse(product.variants_json) as Product['variants']) {
      if (!wanted.has(v.external_variant_id)) continue;
      resolved.set(v.external_variant_id, {
        external_variant_id: v.external_variant_id,
        external_product_id: product.external_product_id,
        title: product.title,
        category: product.category ?? null,
        archived: product.status === 'archived',
        price: v.price,
        currency: v.currency,
        ...(v.min_quantity !== undefined ? { min_quantity: v.min_quantity } : {}),
        ...(v.max_quantity !== undefined ? { max_quantity: v.max_quantity } : {}),
      });
    }
  }
  return resolved;
}
