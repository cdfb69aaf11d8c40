/**
 * Tenants of a given size written straight into the table with the service's own item
 * builders (as its writes would leave them), not through the API, so 50,000 items take a
 * minute instead of an hour. The mix is a store with history: most orders finished over the
 * past year, a pipeline of active orders the same at every size, most deliveries delivered.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { OrderState } from '#shared/api/order-states.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import type { ProductInput } from '#shared/catalog/product-schemas.ts';
import { productAttributes } from '#shared/catalog/products.ts';
import { contentOf, type StoredOrder } from '#shared/orders/order.ts';
import { encodeEntry } from '#shared/orders/order-log.ts';
import { customerLink, orderItem } from '#shared/orders/order-store.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { archivedIndexes } from '#shared/storage/tombstone.ts';
import { versionAttributes } from '#shared/versioning/version-attributes.ts';
import { type StoredDelivery, deliveryItem as storedDeliveryItem } from '#shared/webhooks/delivery-item.ts';
import type { DeliveryStatus } from '#shared/webhooks/webhook-schemas.ts';

/** Active orders (in the call pipeline) at any size: a store's history grows, its pipeline does not. */
export const ACTIVE_ORDERS = 200;
/** Orders of the one customer an erasure is measured on, at any size. */
export const CUSTOMER_ORDERS = 100;
export const ERASED_CUSTOMER = 'regular';
export const ARCHIVED_VARIANT = 'beans';
export const RARE_WORD = 'rare blend';

const DAY_MS = 24 * 3600_000;
const AVAILABILITY = (r: number): ProductInput['availability'] =>
  r < 70 ? 'in_stock' : r < 85 ? 'out_of_stock' : r < 92 ? 'backorder' : r < 97 ? 'preorder' : 'discontinued';
const CATEGORIES = ['food/coffee', 'food/tea', 'drinks', 'home/kitchen'];

function productItem(tenant: string, i: number, now: Date) {
  const r = (i * 37) % 100;
  const input: ProductInput = {
    external_product_id: `p-${String(i).padStart(6, '0')}`,
    title: `Product ${i}${i % 997 === 5 ? ` ${RARE_WORD}` : ''}`,
    category: CATEGORIES[i % 4]!,
    // 20 % inactive, half of them discontinued: every filter holds two pages and more on the
    // smallest tenant too, so each size's first page is read the same way (a 3-item page at 1,000
    // was cheaper for being short, and a filter of exactly one page for its shards running dry).
    status: i % 5 === 1 ? 'inactive' : 'active',
    availability: i % 10 === 1 ? 'discontinued' : AVAILABILITY(r),
    source_version: '1',
    variants: [{ external_variant_id: `v-${i}`, price: '9.99', currency: 'EUR' }],
  } as ProductInput;
  const item: Record<string, unknown> = {
    ...keys.product(tenant, input.external_product_id),
    ...productAttributes(tenant, input, now),
    created_at: now.toISOString(),
  };
  if (i % 10 !== 7) return item;
  // 10 % archived (two pages and more at 1,000, as every filter), moved in the indexes as an archive moves them.
  const moved = archivedIndexes(tenant, 'PRODUCTS', input.external_product_id);
  for (const name of moved.remove) delete item[name];
  return { ...item, ...moved.set, status: 'archived', archived_at: now.toISOString(), list_view: { ...(item.list_view as object), status: 'archived' } };
}

function orderOf(tenant: string, i: number, size: number, now: Date): StoredOrder {
  const stride = Math.floor(size / ACTIVE_ORDERS);
  const active = i % stride === 0;
  const r = (i * 53) % 100;
  const state: OrderState = active ? (['received', 'validated', 'scheduled'] as const)[i % 3]! : r < 85 ? 'completed' : r < 93 ? 'cancelled' : 'rejected';
  const customer = i % Math.floor(size / CUSTOMER_ORDERS) === 1 ? ERASED_CUSTOMER : `c-${i % 5_000}`;
  const variant = active && (i / stride) % 2 === 0 ? ARCHIVED_VARIANT : `v-${i % 1_000}`;
  const content = contentOf({
    order_kind: 'standard',
    external_customer_id: customer,
    items: [{ external_variant_id: variant, quantity: 1, price: '9.99', currency: 'EUR' }],
    contact_permission: { status: 'granted', basis: 'prior_purchase', reference: `receipt-${i}` },
    contact_not_before: '2099-01-01T09:00:00.000Z',
    priority: 0,
    confidence: null,
  });
  // Changes spread over the past year, the newest first in id order.
  const updatedAt = new Date(now.getTime() - (i / size) * 365 * DAY_MS).toISOString();
  return {
    ...keys.order(tenant, `o-${String(i).padStart(6, '0')}`),
    ...content,
    ...versionAttributes('1', content),
    tenant,
    external_order_id: `o-${String(i).padStart(6, '0')}`,
    processing_state: state,
    state_reason: null,
    revision: 3,
    status_revision: 3,
    correlation_id: `cor_${i}`,
    call_attempts: 0,
    next_contact_at: state === 'scheduled' ? '2099-01-01T09:00:00.000Z' : null,
    substitutions: [],
    created_at: updatedAt,
    updated_at: updatedAt,
    // Seeded as it stands: its current state's entry stands for the history before it.
    log: [encodeEntry({ kind: 'status', revision: 3, to: state, reason: null, at: updatedAt, causation: null })],
  } as StoredOrder;
}

function deliveryItem(tenant: string, i: number, size: number, now: Date) {
  const r = (i * 29) % 100;
  const status: DeliveryStatus = r < 88 ? 'delivered' : r < 94 ? 'dead_lettered' : r < 97 ? 'retrying' : 'queued';
  const createdAt = new Date(now.getTime() - (i / size) * 35 * DAY_MS).toISOString();
  const delivery: StoredDelivery = {
    ...keys.delivery(tenant, `dlv_${i}`),
    tenant,
    delivery_id: `dlv_${i}`,
    event_id: `evt_${i}`,
    event_type: 'commerce.order.status_changed.v1',
    status,
    attempts: status === 'delivered' ? 1 : status === 'dead_lettered' ? 8 : 2,
    created_at: createdAt,
    delivered_at: status === 'delivered' ? createdAt : null,
    next_attempt_at: null,
    replay_of: null,
    last_attempt: null,
  };
  return storedDeliveryItem(delivery);
}

async function writeAll(items: Record<string, unknown>[]) {
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, b) => items.slice(b * 25, b * 25 + 25));
  await mapWithConcurrency(batches, 8, async (batch) => {
    let pending: Record<string, unknown>[] = batch.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const out = await tableClient().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (out.UnprocessedItems?.[tableName()] ?? []) as Record<string, unknown>[];
    }
  });
}

/** `size` products, orders (with their customer links) and deliveries for `tenant`. */
export async function seedTenant(tenant: string, size: number, now: Date): Promise<void> {
  for (let start = 0; start < size; start += 5_000) {
    const range = Array.from({ length: Math.min(5_000, size - start) }, (_, k) => start + k);
    await writeAll([
      ...range.map((i) => productItem(tenant, i, now)),
      ...range.flatMap((i) => {
        const order = orderOf(tenant, i, size, now);
        return [orderItem(order, now), customerLink(order)];
      }),
      ...range.map((i) => deliveryItem(tenant, i, size, now)),
    ]);
  }
}
