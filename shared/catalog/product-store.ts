/** Product reads and writes on the single table. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_PRODUCTS_PER_BATCH } from '../api/limits.ts';
import { mapWithConcurrency } from '../async/concurrency.ts';
import { NotFoundError, PayloadTooLargeError, StaleVersionError } from '../errors.ts';
import { fieldErrors } from '../http/validation.ts';
import { jobItem } from '../jobs/reaction-jobs.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { paginate } from '../storage/pagination.ts';
import { archivedIndexes, archiveItem } from '../storage/tombstone.ts';
import { readStoredVersions, type StoredVersionOf, versionedPut } from '../storage/versioned-write.ts';
import { streamDueAttributes } from '../stream/stream-work.ts';
import { versionAttributes } from '../versioning/version-attributes.ts';
import { type Product, type ProductInput, parseProductInput } from './product-schemas.ts';
import { type ProductFilters, productAttributes, productFromItem, productListSources, productView, type StoredProduct } from './products.ts';

/** Conditional writes in flight per batch: enough to finish 500 products well inside 10 s. */
export const BATCH_WRITE_CONCURRENCY = 64;
/** Reasons listed per rejected product; `errors_total` says how many there were. */
export const MAX_ERRORS_PER_ITEM = 10;

export type BatchItemResult =
  | { index: number; external_product_id: string | null; outcome: 'upserted' | 'unchanged'; source_version: string }
  | {
      index: number;
      external_product_id: string | null;
      outcome: 'rejected';
      errors: { code: string; pointer: string; message: string }[];
      errors_total?: number;
    };

/**
 * Writes one product of a batch after the batch has read its stored versions: an unchanged or
 * stale product costs no write, and a new version is put whole (an archived product's tombstone
 * goes with it).
 */
function writeProduct(tenant: string, input: ProductInput, storedVersionOf: StoredVersionOf, now: Date) {
  const key = keys.product(tenant, input.external_product_id);
  return versionedPut(
    key,
    // Every product write carries stream work until the catalog indexer has indexed its variants.
    { ...productAttributes(tenant, input, now), ...streamDueAttributes(key.pk, now) },
    versionAttributes(input.source_version, input),
    storedVersionOf(key),
    { createdAt: now.toISOString(), remove: ['archived_at'] },
  );
}

const idOf = (raw: unknown): string | null => {
  const id = (raw as { external_product_id?: unknown } | null)?.external_product_id;
  return typeof id === 'string' ? id : null;
};

type ParsedProduct = { index: number; input: ProductInput } | { rejected: BatchItemResult };

/** One raw product of a batch checked on its own: its input, or its rejection with a few reasons. */
function parseBatchProduct(raw: unknown, index: number, firstIndexOf: ReadonlyMap<string, number>): ParsedProduct {
  const external_product_id = idOf(raw);
  const at = `/products/${index}`;
  const parsed = parseProductInput(raw);
  if (!parsed.success) {
    // A few reasons per product keep a 500-product answer small enough to store and send.
    const issues = parsed.error.issues;
    const errors = fieldErrors(issues, 'body', MAX_ERRORS_PER_ITEM).map((e) => ({ code: 'validation_failed', pointer: at + e.pointer, message: e.message }));
    return { rejected: { index, external_product_id, outcome: 'rejected', errors, ...(issues.length > errors.length ? { errors_total: issues.length } : {}) } };
  }
  const first = firstIndexOf.get(parsed.data.external_product_id)!;
  if (first !== index) {
    const message = `repeats the product at /products/${first}; send each product once per batch`;
    return {
      rejected: { index, external_product_id, outcome: 'rejected', errors: [{ code: 'validation_failed', pointer: `${at}/external_product_id`, message }] },
    };
  }
  return { index, input: parsed.data };
}

/**
 * Upserts each product of a batch on its own: one bad or stale product is rejected with its
 * reasons and never fails the others. The stored versions of the batch's products are read
 * first, 100 a call (their versions and creation times, not the items), so a product sent again
 * unchanged, as a full catalog sync sends most of them, costs a read instead of a refused write,
 * and a new version is one put.
 * @throws PayloadTooLargeError beyond 500 products
 */
export async function upsertProductBatch(tenant: string, products: readonly unknown[], now: Date): Promise<BatchItemResult[]> {
  if (products.length > MAX_PRODUCTS_PER_BATCH) {
    throw new PayloadTooLargeError(`A batch holds at most ${MAX_PRODUCTS_PER_BATCH} products; this one has ${products.length}. Split it.`);
  }
  const firstIndexOf = new Map<string, number>();
  products.forEach((raw, index) => {
    const id = idOf(raw);
    if (id !== null && !firstIndexOf.has(id)) firstIndexOf.set(id, index);
  });
  const parsed = products.map((raw, index) => parseBatchProduct(raw, index, firstIndexOf));
  const valid = parsed.flatMap((p) => ('input' in p ? [p] : []));
  const storedVersionOf = await readStoredVersions(valid.map((p) => keys.product(tenant, p.input.external_product_id)));
  return mapWithConcurrency(parsed, BATCH_WRITE_CONCURRENCY, async (p): Promise<BatchItemResult> => {
    if ('rejected' in p) return p.rejected;
    const { index, input } = p;
    try {
      const written = await writeProduct(tenant, input, storedVersionOf, now);
      return { index, external_product_id: input.external_product_id, outcome: written.outcome, source_version: input.source_version };
    } catch (error) {
      if (!(error instanceof StaleVersionError)) throw error;
      return {
        index,
        external_product_id: input.external_product_id,
        outcome: 'rejected',
        errors: [{ code: error.code, pointer: `/products/${index}/source_version`, message: error.message }],
      };
    }
  });
}

export async function readProduct(tenant: string, id: string): Promise<StoredProduct | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.product(tenant, id) }));
  return Item ? productFromItem(Item) : undefined;
}

export async function getProduct(tenant: string, id: string): Promise<Product> {
  const item = await readProduct(tenant, id);
  if (!item) throw new NotFoundError(`No product ${id}.`);
  return productView(item);
}

/**
 * Archives a product (a tombstone: never deleted). Archiving an archived product returns it
 * unchanged. The archive writes, in the same transaction, the job that requalifies the active
 * orders using its variants.
 */
export async function archiveProduct(tenant: string, id: string, now: Date): Promise<Product> {
  const item = await archiveItem<StoredProduct>(
    keys.product(tenant, id),
    now,
    archivedIndexes(tenant, 'PRODUCTS', id),
    jobItem('requalify-product-orders', tenant, id, now),
  );
  if (!item) throw new NotFoundError(`No product ${id}.`);
  return productView(item);
}

export function listProducts(tenant: string, filters: ProductFilters, page: { limit: number; cursor?: string | undefined }) {
  return paginate({ tenant, list: 'products', filters: { ...filters } }, page, {
    sources: productListSources(tenant, filters),
  });
}
