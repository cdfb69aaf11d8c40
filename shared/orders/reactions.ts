/**
 * The domain reactions to table changes, run by the stream processor: the variant index,
 * order processing, requalification after a product archive, scrubbing after an erasure, and
 * the write-back of confirmed results. Each is idempotent: a stream record can come twice.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { tenantConfigOf } from '../auth/dynamodb-adapters.ts';
import { sandboxStore, WRITEBACK_ATTEMPTS } from '../calls/writeback.ts';
import { indexNewVariants } from '../catalog/variant-index.ts';
import { readProduct } from '../catalog/product-store.ts';
import type { StoredProduct } from '../catalog/products.ts';
import { eventItem, type EventRecord } from '../events/outbox.ts';
import type { Reaction, StreamChange } from '../stream/stream-dispatch.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys, tenantOfKey } from '../storage/keys.ts';
import { listPage } from '../storage/pagination.ts';
import type { Condition } from '../storage/versioned-write.ts';
import type { OrderResult } from './order-schemas.ts';
import { readOrder, RevisionConflict, writeOrder, type StoredOrder } from './order-store.ts';
import { advanceOrder, requalify } from './processing.ts';
import { ACTIVE_STATES } from './state-machine.ts';

const entityOf = (change: StreamChange) => (change.eventName === 'REMOVE' ? undefined : (change.newImage?.entity as string | undefined));

/** Every order of the tenant matching `filter`, from the sharded order list. */
async function* ordersWhere(tenant: string, filter: Condition): AsyncGenerator<string> {
  let after: string | undefined;
  do {
    const page = await listPage({ shards: keys.listShards(tenant, 'ORDERS'), limit: 200, after, filter });
    for (const view of page.views) yield String(view.external_order_id);
    after = page.last;
  } while (after);
}

/** Re-reads and rewrites until the write lands on the current revision. */
async function withOrder(tenant: string, id: string, change: (order: StoredOrder) => Promise<void>) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const order = await readOrder(tenant, id, true);
    if (!order) return;
    try {
      return await change(order);
    } catch (error) {
      if (!(error instanceof RevisionConflict)) throw error;
    }
  }
}

const activeStateFilter = (extra: string, names: Record<string, string>, values: Record<string, unknown>): Condition => ({
  ConditionExpression: `#view.#state IN (${ACTIVE_STATES.map((_, i) => `:s${i}`).join(', ')}) AND (${extra})`,
  ExpressionAttributeNames: { '#view': 'list_view', '#state': 'processing_state', ...names },
  ExpressionAttributeValues: { ...Object.fromEntries(ACTIVE_STATES.map((s, i) => [`:s${i}`, s])), ...values },
});

async function requalifyActive(order: StoredOrder, now: Date) {
  if (!ACTIVE_STATES.includes(order.processing_state)) return;
  const q = await requalify(order);
  if (q.to === 'rejected') await writeOrder(order, { to: 'rejected', reason: q.reason, set: { next_contact_at: null } }, now);
  else if (JSON.stringify(q.substitutions) !== JSON.stringify(order.substitutions ?? []))
    await writeOrder(order, { set: { substitutions: q.substitutions } }, now);
}

export const variantIndex: Reaction = {
  name: 'variant-index',
  async handle(change) {
    if (entityOf(change) !== 'product') return;
    const next = change.newImage as StoredProduct & { pk: string };
    const previous = change.oldImage?.entity === 'product' ? (change.oldImage as StoredProduct) : undefined;
    await indexNewVariants(tenantOfKey(next.pk), previous, next);
  },
};

export const orderProcessing: Reaction = {
  name: 'order-processing',
  async handle(change) {
    if (entityOf(change) !== 'order') return;
    const order = change.newImage as unknown as StoredOrder;
    const dueAt =
      order.processing_state === 'scheduled' ? order.next_contact_at : order.processing_state === 'received' ? order.retry_qualification_at : undefined;
    const due = !dueAt || Date.parse(dueAt) <= Date.now();
    if ((order.processing_state === 'received' || order.processing_state === 'validated' || order.processing_state === 'scheduled') && due) {
      await advanceOrder(order.tenant, order.external_order_id);
    }
  },
};

/** An archived product's active orders are requalified: rejected, or kept with a replacement. */
export const productArchived: Reaction = {
  name: 'product-archived',
  async handle(change) {
    if (change.eventName !== 'INSERT' || change.newImage?.entity !== 'event' || change.newImage.event_type !== 'internal.product.archived') return;
    const event = change.newImage as unknown as EventRecord;
    const product = await readProduct(event.tenant, String(event.data.external_product_id));
    if (!product) return;
    const variants = (JSON.parse(product.variants_json) as { external_variant_id: string }[]).map((v) => v.external_variant_id);
    const filter = activeStateFilter(
      variants.map((_, i) => `contains(match_keys, :v${i})`).join(' OR '),
      {},
      Object.fromEntries(variants.map((v, i) => [`:v${i}`, v])),
    );
    for await (const id of ordersWhere(event.tenant, filter)) {
      await withOrder(event.tenant, id, (order) => requalifyActive(order, new Date()));
    }
  },
};

/** After an erasure: the contact permission reference leaves every order of the customer, and active ones are rejected. */
export const customerAnonymized: Reaction = {
  name: 'customer-anonymized',
  async handle(change) {
    if (entityOf(change) !== 'customer' || !change.newImage?.anonymized_at || change.oldImage?.anonymized_at) return;
    const tenant = tenantOfKey(String(change.newImage.pk));
    const filter: Condition = {
      ConditionExpression: '#view.external_customer_id = :customer',
      ExpressionAttributeNames: { '#view': 'list_view' },
      ExpressionAttributeValues: { ':customer': change.newImage.external_customer_id },
    };
    for await (const id of ordersWhere(tenant, filter)) {
      await withOrder(tenant, id, async (order) => {
        const { reference: _erased, ...permission } = order.contact_permission;
        const active = ACTIVE_STATES.includes(order.processing_state);
        if (!active && !_erased) return;
        await writeOrder(
          order,
          {
            set: { contact_permission: permission, ...(active ? { next_contact_at: null } : {}) },
            ...(active ? { to: 'rejected', reason: 'customer_anonymized' } : {}),
          },
          new Date(),
        );
      });
    }
  },
};

/** A confirmed result is written back to the store when the tenant enables it; a lasting failure is an event. */
export const writeBack: Reaction = {
  name: 'write-back',
  async handle(change) {
    if (change.eventName !== 'INSERT' || change.newImage?.entity !== 'result') return;
    const result = change.newImage as unknown as OrderResult & { pk: string; tenant: string; scenario?: string };
    if (!result.final_order_snapshot.confirmed || !(await tenantConfigOf(result.tenant)).writeback.enabled) return;
    let failure: string | undefined;
    for (let attempt = 1; attempt <= WRITEBACK_ATTEMPTS; attempt++) {
      try {
        await sandboxStore.writeBack({
          tenant: result.tenant,
          external_order_id: result.external_order_id,
          snapshot: result.final_order_snapshot,
          ...(result.scenario ? { scenario: result.scenario } : {}),
        });
        return;
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
        if (attempt < WRITEBACK_ATTEMPTS) await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
    const order = await readOrder(result.tenant, result.external_order_id);
    try {
      await tableClient().send(
        new PutCommand({
          TableName: tableName(),
          Item: eventItem(
            { pk: result.pk, sk: 'EVENT#WRITEBACK' },
            {
              event_type: 'commerce.writeback.failed.v1',
              tenant: result.tenant,
              external_order_id: result.external_order_id,
              correlation_id: order?.correlation_id ?? 'unknown',
              causation_id: null,
              data: { reason: failure ?? 'unknown', attempts: WRITEBACK_ATTEMPTS },
              occurredAt: new Date(),
            },
          ),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  },
};

/** The stream processor's reactions; the variant index has its own consumer (catalog indexer). */
export const DOMAIN_REACTIONS: readonly Reaction[] = [orderProcessing, productArchived, customerAnonymized, writeBack];
