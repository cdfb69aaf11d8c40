/**
 * Orders in the table: the typed reader, and the one write of an order — a compare-and-set on
 * its `revision` that carries the events the change produced in the order's log (its outbox),
 * in a transaction only with a result. The order's history is its log, read back page by page.
 */
import { GetCommand, PutCommand, QueryCommand, type QueryCommandInput, type QueryCommandOutput, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ORDER_STATES, type OrderState } from '../api/order-states.ts';
import { AlreadyWrittenError, NotFoundError, RevisionConflict } from '../errors.ts';
import type { ListPosition, OrderWalk } from '../jobs/reaction-jobs.ts';
import { streamRecoverySeconds, tableClient, tableName } from '../storage/clients.ts';
import { conditionFailedAt, landed, writeConditionally } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';
import { paginate, sourcesOf } from '../storage/pagination.ts';
import { isTransactionConflict } from '../storage/transient.ts';
import { type AfterStreamWork, streamDueAttributes, withStreamDue } from '../stream/stream-work.ts';
import { applyOrderChange, dueOf, type OrderChange, type OrderRepository, orderCreation, orderFromItem, type StoredOrder } from './order.ts';
import { lastStatus } from './order-log.ts';
import { ACTIVE_STATES, isFinal } from './state-machine.ts';

/** Orders in a state, and orders changed since a time, sort by their last change. */
const changeKey = (o: Pick<StoredOrder, 'updated_at' | 'external_order_id'>) => `${o.updated_at}#${o.external_order_id}`;

/**
 * An order's entry in its list and state partitions: what a list page shows, in one-letter
 * names (each change rewrites it, and every byte of the order item past 1 KB doubles the write).
 */
function listAttributes(o: StoredOrder) {
  return {
    ...keys.listEntry(o.tenant, 'ORDERS', o.external_order_id, o.external_order_id),
    ...keys.facetEntry(o.tenant, 'ORDERS', o.external_order_id, changeKey(o), [o.processing_state]),
    list_view: { i: o.external_order_id, k: o.order_kind, c: o.external_customer_id, s: o.processing_state, p: o.priority, u: o.updated_at },
    match_keys: new Set(o.items.map((i) => i.external_variant_id)),
  };
}

/** An order as a list page shows it, from its list entry. */
const listedOrder = (view: Record<string, unknown>) => ({
  external_order_id: view.i,
  order_kind: view.k,
  external_customer_id: view.c,
  processing_state: view.s,
  priority: view.p,
  updated_at: view.u,
});

export async function readOrder(tenant: string, id: string, consistent = false): Promise<StoredOrder | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.order(tenant, id), ConsistentRead: consistent }));
  return Item ? orderFromItem(Item) : undefined;
}

export async function getOrder(tenant: string, id: string): Promise<StoredOrder> {
  const order = await readOrder(tenant, id);
  if (!order) throw new NotFoundError(`No order ${id}.`);
  return order;
}

/**
 * The order's attributes as stored: every byte past 1 KB doubles each of its writes, so a null,
 * an empty substitution list, the version's sort form (derived from `source_version`: orders
 * are compared in memory, never by a condition) and what the log's newest state change says
 * (its revision, its reason) are left out; `orderFromItem` puts them back.
 */
const storedAttributes = (order: StoredOrder) => {
  const { version_kind: _kind, version_key: _key, status_revision, state_reason, ...stored } = order;
  const inLog = lastStatus(order.log) !== undefined;
  return Object.fromEntries(
    Object.entries({ ...stored, ...(inLog ? {} : { status_revision, state_reason }) }).filter(
      ([name, value]) => value !== null && value !== undefined && !(name === 'substitutions' && (value as unknown[]).length === 0),
    ),
  );
};

/**
 * The order is its events' publisher (its log is its outbox, order-log.ts): each stream record
 * of the order publishes the events its write produced (`webhookFanOut`). A write
 * that leaves the order final, or scheduled past the recovery period, also gives the order a
 * stream-work entry, its one publication marker: that record publishes every event the order
 * has (any a skipped record missed; a delivery that exists is not made again), and the
 * reconciler replays it should it be skipped too. An order that is not final comes back to
 * the call scheduler by its due entry, so every order reaches such a write.
 */
export function orderItem(order: StoredOrder, now: Date) {
  const recovery = streamRecoverySeconds() * 1000;
  const due = dueOf(order, now, streamRecoverySeconds());
  const publication =
    isFinal(order.processing_state) || (order.processing_state === 'scheduled' && due !== undefined && due.getTime() > now.getTime() + recovery);
  const entry = publication ? streamDueAttributes(order.pk, now) : due ? keys.orderDue(order, due) : {};
  return { entity: 'order', ...storedAttributes(order), ...listAttributes(order), ...entry };
}

/**
 * What an order keeps once its publication is done: the call's due entry (or none; a final
 * order has one only while a call it was in has no recorded attempt), and the
 * revision its events are published through, so that the next marked record publishes only
 * what came after (not the whole history again, however long the order lives).
 */
export function afterPublication(item: Record<string, unknown>): AfterStreamWork {
  const order = orderFromItem(item);
  const due = dueOf(order, new Date(), streamRecoverySeconds());
  return { due: due ? keys.orderDue(order, due) : undefined, watermarks: { published: order.revision } };
}

/** The order's link from its customer (an order's customer never changes): written once, with the order. */
export const customerLink = (o: StoredOrder) => ({
  ...keys.customerOrder(o.tenant, o.external_customer_id, o.external_order_id),
  entity: 'customer_order',
  external_order_id: o.external_order_id,
});

const entityOf = (item: object) => (item as { entity?: unknown }).entity;

const revisionCondition = (expectedRevision: number) => ({
  ConditionExpression: '#revision = :revision',
  ExpressionAttributeNames: { '#revision': 'revision' },
  ExpressionAttributeValues: { ':revision': expectedRevision },
});

/**
 * What is written before the order, each on its own: the customer's link (an erasure must find
 * every order, so it exists first), a stretch of log moving out of the order (it is in the
 * order until the order's write lands, so a reader merging both misses nothing), and a call
 * attempt (kept whatever the order became; written once, a report that comes again keeps the
 * first). Nothing here is an event: the order's write alone publishes.
 */
async function writeAhead(item: object): Promise<void> {
  if (entityOf(item) === 'call_attempt')
    await writeConditionally({ put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } });
  else await tableClient().send(new PutCommand({ TableName: tableName(), Item: item }));
}

/**
 * The order's write: one compare-and-set of the order item, its events in its log; only a
 * result, which must exist exactly when the order says it completed, shares a transaction with
 * it (a transaction bills its writes twice).
 */
async function transact(order: StoredOrder, expectedRevision: number | 'new', now: Date, extra: readonly object[]): Promise<void> {
  const item = orderItem(order, now);
  const atomic = extra.filter((i) => entityOf(i) === 'result');
  const ahead = [...extra.filter((i) => entityOf(i) !== 'result'), ...(expectedRevision === 'new' ? [customerLink(order)] : [])];
  for (const aheadItem of ahead) await writeAhead(aheadItem);
  const condition = expectedRevision === 'new' ? { ConditionExpression: 'attribute_not_exists(pk)' } : revisionCondition(expectedRevision);
  if (atomic.length === 0) {
    const outcome = await writeConditionally({ put: { TableName: tableName(), Item: item, ...condition } });
    if (!outcome.written) throw new RevisionConflict(`order ${order.external_order_id} changed`);
    return;
  }
  try {
    await tableClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName(), Item: item, ...condition } },
          // A result to write back starts stream work of its own (its write-back).
          ...atomic.map((Item) => ({ Put: { TableName: tableName(), Item: withStreamDue(Item, now), ConditionExpression: 'attribute_not_exists(pk)' } })),
        ],
      }),
    );
  } catch (error) {
    // Another transaction on the order at the same moment is a change too: read again and decide again.
    if (conditionFailedAt(error, 0) || isTransactionConflict(error)) throw new RevisionConflict(`order ${order.external_order_id} changed`);
    if (atomic.some((_, i) => conditionFailedAt(error, i + 1)))
      throw new AlreadyWrittenError(`the result of order ${order.external_order_id} was written before`);
    throw error;
  }
}

/** Writes `next` with its items over the order as `base` was read. Returns the order as written. */
export async function commitOrder(base: StoredOrder, next: StoredOrder, items: readonly object[], now: Date): Promise<StoredOrder> {
  await transact(next, base.revision, now, items);
  return next;
}

/**
 * Writes `change` onto the order as it was read, with the status event when the state changes. Returns the order as written.
 * @throws RevisionConflict when the order changed since it was read
 * @throws InvalidTransitionError for a transition the state machine does not allow
 */
export async function writeOrder(order: StoredOrder, change: OrderChange, now: Date): Promise<StoredOrder> {
  const { next, items } = applyOrderChange(order, change, now);
  return commitOrder(order, next, items, now);
}

/** Creates the order in `received` with its first status event; undefined if it exists. */
export async function createOrder(order: StoredOrder, now: Date, causationId: string | null): Promise<StoredOrder | undefined> {
  const { created, items } = orderCreation(order, now, causationId);
  try {
    await transact(created, 'new', now, items);
    return created;
  } catch (error) {
    if (!(error instanceof RevisionConflict)) throw error;
    // A creation whose answer was lost and whose retry met the order already moved on by a
    // worker is still this request's: its first log entry (this request, this moment) says so.
    const existing = await readOrder(order.tenant, order.external_order_id, true);
    return existing?.log[0] === created.log[0] ? created : undefined;
  }
}

/** After an erasure: the result of an order no longer keeps the sandbox scenario (the phone's last digit). */
export async function forgetResultScenario(orderPk: string): Promise<void> {
  await landed({
    update: { TableName: tableName(), Key: keys.orderResult(orderPk), UpdateExpression: 'REMOVE scenario', ConditionExpression: 'attribute_exists(pk)' },
  });
}

/** The table as the order processing's repository. */
export const dynamoOrderRepository: OrderRepository = {
  read: (tenant, id) => readOrder(tenant, id, true),
  create: createOrder,
  write: writeOrder,
  commit: commitOrder,
};

/**
 * A page of the tenant's orders: unfiltered in order of id; by state and/or changed since a
 * time in order of last change, read from the state's partitions (all states' for
 * `updated_since` alone) from that time on, so no filter reads an order it does not return.
 */
export async function listOrders(
  tenant: string,
  filters: { processing_state?: OrderState | undefined; updated_since?: string | undefined },
  page: { limit: number; cursor?: string | undefined },
) {
  const scope = { tenant, list: 'orders', filters: { ...filters } };
  const states = filters.processing_state ? [filters.processing_state] : ORDER_STATES;
  const listed =
    !filters.processing_state && !filters.updated_since
      ? await paginate(scope, page, { sources: sourcesOf('gsi1', keys.listShards(tenant, 'ORDERS')) })
      : await paginate(scope, page, {
          sources: states.flatMap((state) => sourcesOf('gsi3', keys.facetShards(tenant, 'ORDERS', [state]))),
          ...(filters.updated_since ? { from: new Date(filters.updated_since).toISOString() } : {}),
        });
  return { ...listed, data: listed.data.map(listedOrder) };
}

interface WalkQuery {
  partitions: string[];
  query(partition: string): Partial<QueryCommandInput>;
  idOf(item: Record<string, unknown>): string;
}

function walkQuery(tenant: string, walk: OrderWalk): WalkQuery {
  if (walk.kind === 'of-customer') {
    const link = keys.customerOrder(tenant, walk.customer, '');
    return {
      partitions: [link.pk],
      query: (pk) => ({
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :orders)',
        ExpressionAttributeValues: { ':pk': pk, ':orders': link.sk },
        ProjectionExpression: 'external_order_id',
      }),
      idOf: (item) => String(item.external_order_id),
    };
  }
  const values = Object.fromEntries(walk.variants.map((v, i) => [`:v${i}`, v]));
  return {
    partitions: ACTIVE_STATES.flatMap((state) => keys.facetShards(tenant, 'ORDERS', [state])),
    query: (gsi3pk) => ({
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :gpk',
      FilterExpression: walk.variants.map((_, i) => `contains(match_keys, :v${i})`).join(' OR '),
      ExpressionAttributeValues: { ':gpk': gsi3pk, ...values },
      ProjectionExpression: 'list_view.i',
    }),
    idOf: (item) => String((item.list_view as { i: string }).i),
  };
}

/**
 * One bounded page of the ids of the orders a walk visits: at most `limit` entries are read
 * (DynamoDB applies the limit before the filter), partition after partition. `next` is null
 * once every partition has been walked.
 */
export async function orderIdsPage(tenant: string, walk: OrderWalk, from: ListPosition, limit: number): Promise<{ ids: string[]; next: ListPosition | null }> {
  const { partitions, query, idOf } = walkQuery(tenant, walk);
  const ids: string[] = [];
  let position: ListPosition | null = from;
  for (let budget = limit; position && budget > 0; ) {
    const { Items, LastEvaluatedKey, ScannedCount }: QueryCommandOutput = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        ...query(partitions[position.shard]!),
        Limit: budget,
        ...(position.after ? { ExclusiveStartKey: position.after } : {}),
      } as QueryCommandInput),
    );
    ids.push(...(Items ?? []).map(idOf));
    budget -= Math.max(1, ScannedCount ?? 0);
    if (LastEvaluatedKey) position = { shard: position.shard, after: LastEvaluatedKey };
    else position = position.shard + 1 < partitions.length ? { shard: position.shard + 1 } : null;
  }
  return { ids, next: position };
}
