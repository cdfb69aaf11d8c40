/**
 * The domain reactions to table changes, run by the stream processor: order processing and
 * the paged jobs (requalification after a product archive, scrubbing after an erasure). Each is idempotent (a stream record can come twice) and gets what it
 * reads and writes through `ReactionPorts`, built by the stream processor's composition root.
 */

import { mapWithConcurrency } from '../async/concurrency.ts';
import type { StoredProduct } from '../catalog/products.ts';
import type { ListPosition, OrderWalk, StoredJob } from '../jobs/reaction-jobs.ts';
import { retryOnRevisionConflict } from '../storage/revision-retry.ts';
import type { Reaction, StreamChange } from '../stream/stream-dispatch.ts';
import { erasedCustomerFields, orderFromItem, rejectionFields, type StoredOrder } from './order.ts';
import { type OrderProcessing, orderProcessing, type ProcessingPorts } from './processing.ts';
import { ACTIVE_STATES } from './state-machine.ts';

export interface ReactionPorts {
  processing: OrderProcessing;
  products: { read(tenant: string, id: string): Promise<StoredProduct | undefined> };
  /** One bounded page of the ids of the orders a walk visits. */
  orderIdsPage(tenant: string, walk: OrderWalk, position: ListPosition, limit: number): Promise<{ ids: string[]; next: ListPosition | null }>;
  jobs: { advance(job: StoredJob, next: ListPosition | null, page: { orders: number; ms: number }, now: Date): Promise<void> };
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

const once = <A extends unknown[], R>(read: (...args: A) => Promise<R>) => {
  const seen = new Map<string, Promise<R>>();
  return (...args: A): Promise<R> => {
    const key = JSON.stringify(args);
    if (!seen.has(key)) seen.set(key, read(...args));
    return seen.get(key)!;
  };
};

/** The processing ports with the reads qualification makes answered once per job page. */
const readOncePerPage = (p: ProcessingPorts): ProcessingPorts => ({
  ...p,
  customers: { read: once(p.customers.read) },
  variants: { resolve: once(p.variants.resolve) },
  rules: { active: once(p.rules.active) },
  tenantConfigOf: once(p.tenantConfigOf),
});

/** Orders a job walks in one invocation: bounded work per page, whatever the tenant's size. */
export const JOB_PAGE_SIZE = 200;
const JOB_ORDER_CONCURRENCY = 8;

/** What a job does: which orders it visits, and what it does to each (none: nothing left to do). */
async function jobWork(ports: ReactionPorts, job: StoredJob): Promise<{ walk: OrderWalk; apply(order: StoredOrder): Promise<void> } | undefined> {
  if (job.kind === 'requalify-product-orders') {
    const product = await ports.products.read(job.tenant, job.subject);
    if (!product) return undefined;
    const variants = (JSON.parse(product.variants_json) as { external_variant_id: string }[]).map((v) => v.external_variant_id);
    if (variants.length === 0) return undefined;
    // One page's orders share their customers, variants and rules: each is read once per page.
    const pageProcessing = orderProcessing(readOncePerPage(ports.processing.ports));
    return { walk: { kind: 'active-using', variants }, apply: (order) => requalifyActive({ ...ports, processing: pageProcessing }, order, new Date()) };
  }
  if (job.pages === 0) {
    // Every platform of the deployment forgets the customer: a tenant that went live may have called them through either.
    const { sandbox, live } = ports.processing.ports.callPlatforms;
    for (const platform of [sandbox, live]) await platform?.erase({ tenant: job.tenant, external_customer_id: job.subject });
  }
  // A link is written ahead of its order: one whose order was created for another customer (a
  // concurrent creation of the same id that lost) leads to an order this erasure must not touch.
  return {
    walk: { kind: 'of-customer', customer: job.subject },
    apply: async (order) => {
      if (order.external_customer_id === job.subject) await scrubErasedCustomer(ports, order);
    },
  };
}

/** After an erasure: the contact permission reference leaves the order, and an active one is rejected. */
async function scrubErasedCustomer(ports: ReactionPorts, order: StoredOrder) {
  const active = ACTIVE_STATES.includes(order.processing_state);
  await ports.forgetResultScenario(order.pk);
  if (!active && order.contact_permission.reference === undefined) return;
  const rejection = active ? { to: 'rejected' as const, reason: 'customer_anonymized' } : {};
  const set = { ...erasedCustomerFields(order), ...(active ? { next_contact_at: null } : {}) };
  await ports.processing.ports.orders.write(order, { set, ...rejection }, new Date());
}

/**
 * One page of a reaction job (an archived product's active orders requalified: rejected, or
 * kept with a replacement; an erased customer's orders scrubbed), then the job moved on: its
 * change brings the next page. A job's record seen again (a duplicate) redoes an idempotent page.
 */
const orderJobReaction = (ports: ReactionPorts): Reaction => ({
  name: 'order-job',
  async handle(change) {
    if (entityOf(change) !== 'job') return;
    const job = change.newImage as unknown as StoredJob;
    if (job.status !== 'running' || job.position === null) return;
    const started = performance.now();
    const work = await jobWork(ports, job);
    if (!work) return ports.jobs.advance(job, null, { orders: 0, ms: performance.now() - started }, new Date());
    const page = await ports.orderIdsPage(job.tenant, work.walk, job.position, JOB_PAGE_SIZE);
    await mapWithConcurrency(page.ids, JOB_ORDER_CONCURRENCY, (id) => withOrder(ports, job.tenant, id, work.apply));
    await ports.jobs.advance(job, page.next, { orders: page.ids.length, ms: performance.now() - started }, new Date());
  },
});

/** The stream processor's domain reactions; the variant index has its own consumer (catalog indexer). */
export const domainReactions = (ports: ReactionPorts): Reaction[] => [orderProcessingReaction(ports), orderJobReaction(ports)];
