/**
 * The domain reactions to table changes, run by the stream processor: order processing,
 * requalification after a product archive, scrubbing after an erasure, and the write-back of
 * confirmed results. Each is idempotent (a stream record can come twice) and gets what it
 * reads and writes through `ReactionPorts`, built by the stream processor's composition root.
 */
import type { StoreWriteBack } from '../calls/writeback.ts';
import { WRITEBACK_ATTEMPTS } from '../calls/writeback.ts';
import type { StoredProduct } from '../catalog/products.ts';
import { type EventRecord, eventItem } from '../events/outbox.ts';
import { keys, tenantOfKey } from '../storage/keys.ts';
import { retryOnRevisionConflict } from '../storage/revision-retry.ts';
import type { Condition } from '../storage/versioned-write.ts';
import type { Reaction, StreamChange } from '../stream/stream-dispatch.ts';
import { erasedCustomerFields, lastStatusEventId, orderFromItem, rejectionFields, type StoredOrder } from './order.ts';
import type { OrderResult } from './order-schemas.ts';
import type { OrderProcessing } from './processing.ts';
import { ACTIVE_STATES } from './state-machine.ts';

export interface ReactionPorts {
  processing: OrderProcessing;
  products: { read(tenant: string, id: string): Promise<StoredProduct | undefined> };
  /** Ids of the tenant's orders whose list view matches `filter`. */
  orderIdsWhere(tenant: string, filter: Condition): AsyncIterable<string>;
  store: StoreWriteBack;
  /** Writes an event item unless it exists (its key makes it once per cause). */
  putEventOnce(item: EventRecord & { pk: string; sk: string }): Promise<void>;
  /** Removes what a result item kept of the customer's phone. */
  forgetResultScenario(orderPk: string): Promise<void>;
}

const entityOf = (change: StreamChange) => (change.eventName === 'REMOVE' ? undefined : (change.newImage?.entity as string | undefined));

/** Re-reads the order and applies `change`, again while another writer gets there first. */
const withOrder = (ports: ReactionPorts, tenant: string, id: string, change: (order: StoredOrder) => Promise<void>) =>
  retryOnRevisionConflict(async () => {
    const order = await ports.processing.ports.orders.read(tenant, id);
    if (order) await change(order);
  });

const activeStateFilter = (extra: string, names: Record<string, string>, values: Record<string, unknown>): Condition => ({
  ConditionExpression: `#view.#state IN (${ACTIVE_STATES.map((_, i) => `:s${i}`).join(', ')}) AND (${extra})`,
  ExpressionAttributeNames: { '#view': 'list_view', '#state': 'processing_state', ...names },
  ExpressionAttributeValues: { ...Object.fromEntries(ACTIVE_STATES.map((s, i) => [`:s${i}`, s])), ...values },
});

async function requalifyActive(ports: ReactionPorts, order: StoredOrder, now: Date) {
  if (!ACTIVE_STATES.includes(order.processing_state)) return;
  const orders = ports.processing.ports.orders;
  const q = await ports.processing.requalify(order);
  if (q.to === 'rejected')
    await orders.write(order, { to: 'rejected', reason: q.reason, set: { next_contact_at: null, ...rejectionFields(order, q.reason) } }, now);
  else if (JSON.stringify(q.substitutions) !== JSON.stringify(order.substitutions ?? []))
    await orders.write(order, { set: { substitutions: q.substitutions } }, now);
}

const orderProcessingReaction = (ports: ReactionPorts): Reaction => ({
  name: 'order-processing',
  async handle(change) {
    if (entityOf(change) !== 'order') return;
    const order = orderFromItem(change.newImage!);
    const dueAt =
      order.processing_state === 'scheduled' ? order.next_contact_at : order.processing_state === 'received' ? order.retry_qualification_at : undefined;
    const due = !dueAt || Date.parse(dueAt) <= Date.now();
    if ((order.processing_state === 'received' || order.processing_state === 'validated' || order.processing_state === 'scheduled') && due) {
      await ports.processing.advanceOrder(order.tenant, order.external_order_id);
    }
  },
});

/** An archived product's active orders are requalified: rejected, or kept with a replacement. */
const productArchivedReaction = (ports: ReactionPorts): Reaction => ({
  name: 'product-archived',
  async handle(change) {
    if (change.eventName !== 'INSERT' || change.newImage?.entity !== 'event' || change.newImage.event_type !== 'internal.product.archived') return;
    const event = change.newImage as unknown as EventRecord;
    const product = await ports.products.read(event.tenant, String(event.data.external_product_id));
    if (!product) return;
    const variants = (JSON.parse(product.variants_json) as { external_variant_id: string }[]).map((v) => v.external_variant_id);
    const filter = activeStateFilter(
      variants.map((_, i) => `contains(match_keys, :v${i})`).join(' OR '),
      {},
      Object.fromEntries(variants.map((v, i) => [`:v${i}`, v])),
    );
    for await (const id of ports.orderIdsWhere(event.tenant, filter)) {
      await withOrder(ports, event.tenant, id, (order) => requalifyActive(ports, order, new Date()));
    }
  },
});

/** After an erasure: the contact permission reference leaves every order of the customer, and active ones are rejected. */
const customerAnonymizedReaction = (ports: ReactionPorts): Reaction => ({
  name: 'customer-anonymized',
  async handle(change) {
    if (entityOf(change) !== 'customer' || !change.newImage?.anonymized_at || change.oldImage?.anonymized_at) return;
    const tenant = tenantOfKey(String(change.newImage.pk));
    const filter: Condition = {
      ConditionExpression: '#view.external_customer_id = :customer',
      ExpressionAttributeNames: { '#view': 'list_view' },
      ExpressionAttributeValues: { ':customer': change.newImage.external_customer_id },
    };
    await ports.processing.ports.callPlatform.erase({ tenant, external_customer_id: String(change.newImage.external_customer_id) });
    for await (const id of ports.orderIdsWhere(tenant, filter)) {
      await withOrder(ports, tenant, id, async (order) => {
        const active = ACTIVE_STATES.includes(order.processing_state);
        await ports.forgetResultScenario(order.pk);
        if (!active && order.contact_permission.reference === undefined) return;
        const rejection = active ? { to: 'rejected' as const, reason: 'customer_anonymized' } : {};
        const set = { ...erasedCustomerFields(order), ...(active ? { next_contact_at: null } : {}) };
        await ports.processing.ports.orders.write(order, { set, ...rejection }, new Date());
      });
    }
  },
});

async function tryWriteBack(store: StoreWriteBack, result: StoredResult): Promise<string | undefined> {
  let failure: string | undefined;
  for (let attempt = 1; attempt <= WRITEBACK_ATTEMPTS; attempt++) {
    try {
      const request = { tenant: result.tenant, external_order_id: result.external_order_id, snapshot: result.final_order_snapshot };
      await store.writeBack({ ...request, ...(result.scenario ? { scenario: result.scenario } : {}) });
      return undefined;
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
      if (attempt < WRITEBACK_ATTEMPTS) await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
  return failure ?? 'unknown';
}

type StoredResult = OrderResult & { pk: string; tenant: string; scenario?: string };
const resultFromItem = (item: Record<string, unknown>): StoredResult => item as unknown as StoredResult;

/** A confirmed result is written back to the store when the tenant enables it; a lasting failure is an event. */
const writeBackReaction = (ports: ReactionPorts): Reaction => ({
  name: 'write-back',
  async handle(change) {
    if (change.eventName !== 'INSERT' || change.newImage?.entity !== 'result') return;
    const result = resultFromItem(change.newImage);
    if (!result.final_order_snapshot.confirmed || !(await ports.processing.ports.tenantConfigOf(result.tenant)).writeback.enabled) return;
    const failure = await tryWriteBack(ports.store, result);
    if (failure === undefined) return;
    const order = await ports.processing.ports.orders.read(result.tenant, result.external_order_id);
    await ports.putEventOnce(
      eventItem(keys.orderWritebackEvent(result.pk), {
        event_type: 'commerce.writeback.failed.v1',
        tenant: result.tenant,
        external_order_id: result.external_order_id,
        correlation_id: order?.correlation_id ?? 'unknown',
        causation_id: order ? lastStatusEventId(order) : null,
        data: { reason: failure, attempts: WRITEBACK_ATTEMPTS },
        occurredAt: new Date(),
      }),
    );
  },
});

/** The stream processor's domain reactions; the variant index has its own consumer (catalog indexer). */
export const domainReactions = (ports: ReactionPorts): Reaction[] => [
  orderProcessingReaction(ports),
  productArchivedReaction(ports),
  customerAnonymizedReaction(ports),
  writeBackReaction(ports),
];
