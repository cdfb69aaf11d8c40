/**
 * Key builders: every item key of the single table is built here and nowhere else.
 *
 * Access patterns (pattern → key condition → index):
 * | pattern                               | key condition                                   | index |
 * |---------------------------------------|-------------------------------------------------|-------|
 * | API key by key id (authentication)    | pk = KEY#{keyId}, sk = KEY                      | table |
 * | tenant configuration                  | pk = T#{tenant}, sk = CONFIG                    | table |
 * | nonce seen for a key within 300 s     | pk = T#{tenant}#NONCE#{keyId}#{nonce}, sk = NONCE | table |
 * | idempotency record                    | pk = T#{tenant}#IDEM#{hash}, sk = IDEM          | table |
 * | requests of a key in a rate window    | pk = T#{tenant}#RATE#{keyId}#{windowStart}[#{counter}], sk = RATE | table |
 * | webhook subscription                  | pk = T#{tenant}#WEBHOOK, sk = SUBSCRIPTION      | table |
 * | a tenant's live listen sessions       | pk = T#{tenant}#LISTEN, sk = SESSION#{id} (expires_at > now) | table |
 * | a listen session's feed, in order     | pk = T#{tenant}#LISTEN#{id}, sk = FEED#{at}#{event id} > cursor | table |
 * | product (with its variants)           | pk = T#{tenant}#PRODUCT#{id}, sk = PRODUCT      | table |
 * | product of a variant                  | pk = T#{tenant}#VARIANT#{id}, sk = VARIANT      | table |
 * | customer                              | pk = T#{tenant}#CUSTOMER#{id}, sk = CUSTOMER    | table |
 * | sales rule                            | pk = T#{tenant}#RULE#{id}, sk = RULE            | table |
 * | audit record of an erasure            | pk = T#{tenant}#CUSTOMER#{id}, sk = AUDIT#{at}  | table |
 * | order                                 | pk = T#{tenant}#ORDER#{id}, sk = ORDER          | table |
 * | an order's attempts, result, history   | pk = T#{tenant}#ORDER#{id}, sk = ATTEMPT#{n} / RESULT / HISTORY#{rev} / EVENT#WRITEBACK | table |
 * | orders due for work (call, retry)     | gsi2pk = ORDERDUE#{shard}, gsi2sk = {day}#{tenant}#{due}#{priority} (a skip scan per day and tenant) | gsi2 |
 * | webhook delivery (and its attempts)   | pk = T#{tenant}#DELIVERY#{id}, sk = DELIVERY / PAYLOAD / ATTEMPT#{n} | table |
 * | orders, unfiltered (by id)            | gsi1pk = T#{tenant}#ORDERS#{shard}, gsi1sk = {id} > cursor | gsi1 (8 shards merged) |
 * | orders in a state (± updated_since)   | gsi3pk = T#{tenant}#ORDERS#ST#{state}#{shard}, gsi3sk = {updated_at}#{id} >= since | gsi3 (2 shards merged) |
 * | orders changed since (any state)      | the same, every state's shards merged           | gsi3 (16 partitions) |
 * | active orders using a variant (archive) | the active states' partitions, match_keys filter | gsi3  |
 * | a customer's orders (erasure)         | pk = T#{tenant}#CUSTOMER#{id}, sk begins ORDER#  | table |
 * | products by status (default: active + inactive) | gsi1pk = T#{tenant}#PRODUCTS#{status}#{shard}, gsi1sk = {id} | gsi1 (4 shards per status) |
 * | products by availability (± status)  | gsi3pk = T#{tenant}#PRODUCTS#AV#{availability}#{status}#{shard}, gsi3sk = {id} (unarchived only) | gsi3 |
 * | products by q / category              | a bounded scan of the partitions above, pages may be short | gsi1/gsi3 |
 * | rules (unarchived / archived)         | gsi1pk = T#{tenant}#RULES#{status}#{shard}, gsi1sk = {id} | gsi1 |
 * | rules enabled or disabled             | gsi3pk = T#{tenant}#RULES#EN#{enabled}#{shard} (unarchived only) | gsi3 |
 * | deliveries, newest first              | gsi1pk = T#{tenant}#DELIVERIES#{shard}, gsi1sk = {created_at}#{id} | gsi1 (16 shards merged) |
 * | deliveries queued, retrying or dead-lettered | gsi3pk = T#{tenant}#DELIVERIES#ST#{status}#{shard}, same sort key | gsi3 |
 * | deliveries delivered (the many)       | the unfiltered list's partitions, a status filter | gsi1 |
 * | server-side key material              | pk = SYSTEM, sk = {name}                        | table |
 * | overdue queue work                    | gsi2pk = DUE#{shard}, gsi2sk <= now             | gsi2  |
 * | a tenant's reaction jobs (paged over orders) | pk = T#{tenant}#JOBS, sk = JOB#{kind}#{subject}#{at} | table |
 * | live calls in flight (the concurrency cap) | pk = CALLSLOTS, sk = SLOT#{n} (lease_until > now) | table |
 * | stream work not yet done (orders until their events are out, other events, jobs, results to write back, products) | gsi2pk = STREAMDUE#{shard}, gsi2sk <= now | gsi2 |
 *
 * Tenant data always starts with `T#{tenant}#`, so no request can address another tenant's
 * items: the tenant comes only from the authenticated principal. No partition key ever
 * holds a whole tenant's catalog or order book (DynamoDB allows 1,000 write units per
 * second per partition key): each entity has its own partition key and tenant-wide lists
 * use a GSI partition key spread over LIST_SHARDS shards.
 *
 * Every list filter with a fixed set of values (status, availability, state, enabled) is a
 * partition of its own (a "facet"), so a filtered page reads only matching entries and costs
 * the same on a tenant of 1,000 items as on one of 1,000,000. A filter on free text (`q`,
 * `category`) reads a bounded number of entries per page instead (see pagination.ts).
 */
import { createHash } from 'node:crypto';
import { LATEST_INSTANT } from '../api/fields.ts';
import { STREAM_DUE_INDEX, TABLE_DEFINITION } from './definition.ts';

export const TABLE_TTL_ATTRIBUTE = TABLE_DEFINITION.ttlAttribute;
/**
 * Shards of each list partition: enough that a tenant's peak write rate (1,000 products/s in
 * an import, 200 orders/s with ~5 changes each, ~1,000 deliveries/s) stays under half of a
 * partition's 1,000 writes/s; every unfiltered page merges one query per shard.
 */
export const LIST_SHARDS: Readonly<Record<ListName, number>> = { PRODUCTS: 4, RULES: 4, ORDERS: 8, DELIVERIES: 16 };
/** Shards of each facet partition (a filter value): a facet holds part of a list, so fewer suffice. */
export const FACET_SHARDS: Readonly<Record<ListName, number>> = { PRODUCTS: 4, RULES: 2, ORDERS: 2, DELIVERIES: 8 };
/** A global due index: its partitions, which a sweep reads every one of. */
export interface DueIndex {
  shards: number;
  partition(shard: number): string;
}

/** How every stream-work due entry's partition begins. */
export const STREAM_DUE_PREFIX = `${STREAM_DUE_INDEX}#`;
/** True while an item's stream work is not done: it carries a stream-work due entry. */
export const hasStreamDue = (item: Record<string, unknown> | undefined): boolean =>
  typeof item?.gsi2pk === 'string' && item.gsi2pk.startsWith(STREAM_DUE_PREFIX);

const dueIndex = (prefix: string, shards: number): DueIndex => ({ shards, partition: (shard) => `${prefix}#${shard}` });

/**
 * The global due indexes (calls due, queue messages due, stream work due): every tenant's work
 * passes through them, so each has as many shards as 1,300 orders/s across all tenants need
 * to stay under half of a partition's 1,000 writes/s, and no more: a sweep reads every shard
 * on every run, the call scheduler's every second locally and every minute on AWS, and the
 * reconciler's every minute, so a shard too many is a read per run and part of every cold
 * start. At that peak (the model, `npm run bench -- model`): about 7,900 order-due writes/s
 * (32 shards, each tenant's in 8 of them: the hottest 428, the largest tenant's beside others'),
 * about 4,000 stream-work writes/s with the largest catalog import's 2,000 beside them (32
 * shards, under 190 each), and about 1,850 delivery-due writes/s, a retry's wait only: a
 * delivery made from a stream record has no due entry unless its send failed (8 shards, 231
 * each; 128 when every delivery armed one, 39,000 writes/s).
 */
export const DUE_INDEXES = {
  orders: dueIndex('ORDERDUE', 32),
  queueMessages: dueIndex('DUE', 8),
  streamWork: dueIndex(STREAM_DUE_INDEX, 32),
} as const;

/** The tenant of a tenant-scoped key (tenant ids never contain `#`). */
export const tenantOfKey = (pk: string): string => pk.split('#')[1]!;

export type ListName = 'PRODUCTS' | 'RULES' | 'ORDERS' | 'DELIVERIES';

export interface ItemKey {
  pk: string;
  sk: string;
}

/** One string per item key, to look items up or drop repeated keys by (`\n` is in no key). */
export const itemKeyId = (key: ItemKey): string => `${key.pk}\n${key.sk}`;

const tenantPrefix = (tenant: string) => `T#${tenant}`;

/**
 * A partner id as a key segment: `#` (the separator) and `%` (the escape) percent-encoded, so
 * no id can end one segment early and reach another entity's or another id's items.
 */
export const keySegment = (id: string): string => id.replaceAll('%', '%25').replaceAll('#', '%23');

/** How many of the order due index's shards one tenant's entries spread over. */
export const TENANT_DUE_SHARDS = 8;

/** The due-index shard of a tenant's order: one of the tenant's TENANT_DUE_SHARDS consecutive shards. */
export function tenantDueShard(tenant: string, orderPk: string): number {
  return (shardOf(tenant, DUE_INDEXES.orders.shards) + shardOf(orderPk, TENANT_DUE_SHARDS)) % DUE_INDEXES.orders.shards;
}

/** Priority -1000…1000 as text that sorts the higher first: 1000 is `0000`, -1000 is `2000`. */
const priorityKey = (priority: number) => String(1000 - priority).padStart(4, '0');

/** Deterministic shard of an id, so a writer and a reader agree without coordination. */
export function shardOf(id: string, shards: number): number {
  return createHash('sha256').update(id).digest().readUInt32BE(0) % shards;
}

/** Facet values are the service's own enum values (never a partner's string), so they need no escaping. */
const listPartition = (tenant: string, list: ListName, facets: readonly string[], shard: number) => [tenantPrefix(tenant), list, ...facets, shard].join('#');
const facetPartition = (tenant: string, list: ListName, facets: readonly string[], shard: number) =>
  [tenantPrefix(tenant), list, FACET_MARK[list], ...facets, shard].join('#');
/** What a facet partition filters by, named in its key so an operator reading a key knows. */
const FACET_MARK: Readonly<Record<ListName, string>> = { PRODUCTS: 'AV', RULES: 'EN', ORDERS: 'ST', DELIVERIES: 'ST' };

/** The partition of the deployment's live-call places: one item per call in flight, at most the quota. */
export const CALL_SLOTS = 'CALLSLOTS';

export const keys = {
  apiKey: (keyId: string): ItemKey => ({ pk: `KEY#${keyId}`, sk: 'KEY' }),
  tenantConfig: (tenant: string): ItemKey => ({ pk: tenantPrefix(tenant), sk: 'CONFIG' }),
  /** The signing secrets of a tenant's write-back endpoint (the current one and, during an overlap, the previous one). */
  writebackSecret: (tenant: string): ItemKey => ({ pk: tenantPrefix(tenant), sk: 'WRITEBACK_SECRET' }),
  nonce: (tenant: string, keyId: string, nonce: string): ItemKey => ({
    pk: `${tenantPrefix(tenant)}#NONCE#${keyId}#${nonce}`,
    sk: 'NONCE',
  }),
  /** A key's request counter in one rate window; counter 0 unless the key's rate needs several (see takeRateToken). */
  rateWindow: (tenant: string, keyId: string, windowStartMs: number, counter = 0): ItemKey => ({
    pk: `${tenantPrefix(tenant)}#RATE#${keyId}#${windowStartMs}${counter === 0 ? '' : `#${counter}`}`,
    sk: 'RATE',
  }),
  idempotency: (tenant: string, hash: string): ItemKey => ({ pk: `${tenantPrefix(tenant)}#IDEM#${hash}`, sk: 'IDEM' }),
  webhookSubscription: (tenant: string): ItemKey => ({ pk: `${tenantPrefix(tenant)}#WEBHOOK`, sk: 'SUBSCRIPTION' }),
  listenSession: (tenant: string, sessionId: string): ItemKey => ({ pk: `${tenantPrefix(tenant)}#LISTEN`, sk: `SESSION#${keySegment(sessionId)}` }),
  listenFeedEntry: (tenant: string, sessionId: string, cursor: string): ItemKey => ({
    pk: `${tenantPrefix(tenant)}#LISTEN#${keySegment(sessionId)}`,
    sk: `FEED#${cursor}`,
  }),
  product: (tenant: string, id: string): ItemKey => ({ pk: `${tenantPrefix(tenant)}#PRODUCT#${keySegment(id)}`, sk: 'PRODUCT' }),
  variant: (tenant: string, id: string): ItemKey => ({ pk: `${tenantPrefix(tenant)}#VARIANT#${keySegment(id)}`, sk: 'VARIANT' }),
  customer: (tenant: string, id: string): ItemKey => ({ pk: `${tenantPrefix(tenant)}#CUSTOMER#${keySegment(id)}`, sk: 'CUSTOMER' }),
  customerAudit: (tenant: string, id: string, atIso: string): ItemKey => ({ pk: `${tenantPrefix(tenant)}#CUSTOMER#${keySegment(id)}`, sk: `AUDIT#${atIso}` }),
  order: (tenant: string, id: string): ItemKey => ({ pk: `${tenantPrefix(tenant)}#ORDER#${keySegment(id)}`, sk: 'ORDER' }),
  orderEvent: (orderPk: string, revision: number, suffix = ''): ItemKey => ({ pk: orderPk, sk: `EVENT#${String(revision).padStart(6, '0')}${suffix}` }),
  orderAttempt: (orderPk: string, attempt: number): ItemKey => ({ pk: orderPk, sk: `ATTEMPT#${String(attempt).padStart(3, '0')}` }),
  orderResult: (orderPk: string): ItemKey => ({ pk: orderPk, sk: 'RESULT' }),
  /** The live call platform's contact of an attempt, kept with the order (a cancel finds it by the attempt). */
  orderContact: (orderPk: string, attempt: number): ItemKey => ({ pk: orderPk, sk: `CONTACT#${String(attempt).padStart(3, '0')}` }),
  /** A live call attempt by the opaque reference its contact carries: written before the dial, so the flow's first turn finds it. */
  callReference: (reference: string): ItemKey => ({ pk: `CALLREF#${reference}`, sk: 'CALLREF' }),
  /** A contact id's attempt (its events find the order by it). */
  contact: (contactId: string): ItemKey => ({ pk: `CONTACT#${contactId}`, sk: 'CONTACT' }),
  /** The deployment's live dials in one second, across every tenant (the call platform's dial rate). */
  dialRate: (epochSecond: number): ItemKey => ({ pk: `DIALRATE#${epochSecond}`, sk: 'DIALRATE' }),
  /** One of the deployment's places for a live call in flight (the platform's concurrent-calls quota). */
  callSlot: (slot: number): ItemKey => ({ pk: CALL_SLOTS, sk: `SLOT#${String(slot).padStart(4, '0')}` }),
  /** The tenants that wanted to dial in one window of the dial rate's turns. */
  dialContenders: (bucket: number): ItemKey => ({ pk: `DIALRATE#CONTENDERS#${bucket}`, sk: 'CONTENDERS' }),
  /** A stretch of an order's log moved out of the order item, by the revision of its first entry. */
  orderHistory: (orderPk: string, firstRevision: number): ItemKey => ({ pk: orderPk, sk: `HISTORY#${String(firstRevision).padStart(6, '0')}` }),
  /** The one `commerce.writeback.failed.v1` event an order's result can have. */
  orderWritebackEvent: (orderPk: string): ItemKey => ({ pk: orderPk, sk: 'EVENT#WRITEBACK' }),
  /** A position in an order's own collection (attempts, history), for paging through it. */
  orderCollectionPosition: (orderPk: string, sk: string): ItemKey => ({ pk: orderPk, sk }),
  productEvent: (tenant: string, id: string, atIso: string): ItemKey => ({ pk: `${tenantPrefix(tenant)}#PRODUCT#${keySegment(id)}`, sk: `EVENT#${atIso}` }),
  /**
   * Order work index entry: `{due day}#{tenant}#{due}#{priority}`. A day's entries of one
   * tenant sit together, in TENANT_DUE_SHARDS of the index's shards (chosen by the tenant, so a
   * large tenant's writes spread over a few partitions), by due time and, among orders due at
   * the same time, by priority. The sweep's skip scan (due-index.ts) visits each tenant with
   * anything scheduled up to today, never the far future, and reads only the share of its due
   * orders it can start. The due time is canonical UTC, never past LATEST_INSTANT (a year past
   * 9999 is written `+010000-…`, which sorts before every real time and would be due forever).
   */
  orderDue: (order: { pk: string; tenant: string; priority: number }, dueAt: Date) => {
    const due = dueAt.getTime() < Date.parse(LATEST_INSTANT) ? dueAt.toISOString() : LATEST_INSTANT;
    return {
      gsi2pk: DUE_INDEXES.orders.partition(tenantDueShard(order.tenant, order.pk)),
      gsi2sk: [due.slice(0, 10), order.tenant, due, priorityKey(order.priority)].join('#'),
    };
  },
  delivery: (tenant: string, id: string): ItemKey => ({ pk: `${tenantPrefix(tenant)}#DELIVERY#${keySegment(id)}`, sk: 'DELIVERY' }),
  /** A delivery's payload, written once beside it. */
  deliveryPayload: (deliveryPk: string): ItemKey => ({ pk: deliveryPk, sk: 'PAYLOAD' }),
  deliveryAttempt: (deliveryPk: string, attempt: number): ItemKey => ({ pk: deliveryPk, sk: `ATTEMPT#${String(attempt).padStart(3, '0')}` }),
  testEvent: (tenant: string, id: string): ItemKey => ({ pk: `${tenantPrefix(tenant)}#TESTEVENT#${keySegment(id)}`, sk: 'EVENT' }),
  salesRule: (tenant: string, id: string): ItemKey => ({ pk: `${tenantPrefix(tenant)}#RULE#${keySegment(id)}`, sk: 'RULE' }),
  /** The list-index entry of an item (gsi1), in the partition of its `facets` (e.g. a product's status); its shard follows from its own id. */
  listEntry: (tenant: string, list: ListName, id: string, sortKey: string, facets: readonly string[] = []) => ({
    gsi1pk: listPartition(tenant, list, facets, shardOf(id, LIST_SHARDS[list])),
    gsi1sk: sortKey,
  }),
  listShards: (tenant: string, list: ListName, facets: readonly string[] = []): string[] =>
    Array.from({ length: LIST_SHARDS[list] }, (_, shard) => listPartition(tenant, list, facets, shard)),
  /** The facet-index entry of an item (gsi3): the partition of one filter value, e.g. an order's state. */
  facetEntry: (tenant: string, list: ListName, id: string, sortKey: string, facets: readonly string[]) => ({
    gsi3pk: facetPartition(tenant, list, facets, shardOf(id, FACET_SHARDS[list])),
    gsi3sk: sortKey,
  }),
  facetShards: (tenant: string, list: ListName, facets: readonly string[]): string[] =>
    Array.from({ length: FACET_SHARDS[list] }, (_, shard) => facetPartition(tenant, list, facets, shard)),
  /** The link from a customer to one of its orders, written with the order: an erasure finds the customer's orders by it. */
  customerOrder: (tenant: string, customerId: string, orderId: string): ItemKey => ({
    pk: `${tenantPrefix(tenant)}#CUSTOMER#${keySegment(customerId)}`,
    sk: `ORDER#${keySegment(orderId)}`,
  }),
  system: (name: string): ItemKey => ({ pk: 'SYSTEM', sk: name }),
  /** Due-work index entry: the reconciler scans each shard for `gsi2sk <= now`. */
  due: (recordPk: string, dueAtIso: string) => ({
    gsi2pk: DUE_INDEXES.queueMessages.partition(shardOf(recordPk, DUE_INDEXES.queueMessages.shards)),
    gsi2sk: dueAtIso,
  }),
  /** A job that pages a reaction over a tenant's orders (requalify after an archive, scrub after an erasure). */
  job: (tenant: string, kind: string, subject: string, atIso: string): ItemKey => ({
    pk: `${tenantPrefix(tenant)}#JOBS`,
    sk: `JOB#${kind}#${keySegment(subject)}#${atIso}`,
  }),
  /** Stream work index entry: an item whose stream record has not been handled yet; the reconciler replays it once `gsi2sk <= now`. */
  streamDue: (recordPk: string, dueAtIso: string) => ({
    gsi2pk: DUE_INDEXES.streamWork.partition(shardOf(recordPk, DUE_INDEXES.streamWork.shards)),
    gsi2sk: dueAtIso,
  }),
} as const;
