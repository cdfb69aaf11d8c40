/**
 * Orders in the table: the typed reader, and the one write of an order — a compare-and-set on
 * its `revision`, in one transaction with the items its change produces (status event,
 * attempts, result). The order's history is its status events, read back page by page.
 */
import { GetCommand, QueryCommand, type QueryCommandInput, type QueryCommandOutput, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { AlreadyWrittenError, NotFoundError, RevisionConflict } from '../errors.ts';
import { streamRecoverySeconds, tableClient, tableName } from '../storage/clients.ts';
import { conditionFailedAt, landed, writeConditionally } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';
import { paginate, sourcesOf } from '../storage/pagination.ts';
import { streamDueAttributes, withStreamDue } from '../stream/stream-work.ts';
import type { ListPosition, OrderWalk } from './order-jobs.ts';
import {
  applyOrderChange,
  dueOf,
  type HistoryEntry,
  historyEntryOf,
  type OrderChange,
  type OrderRepository,
  orderCreation,
  orderFromItem,
  type StoredOrder,
} from './order.ts';
import { ACTIVE_STATES, isFinal, ORDER_STATES, type OrderState } from './state-machine.ts';
import { isTransactionConflict } from '../storage/transient.ts';

/** Orders in a state, and orders changed since a time, sort by their last change. */
const changeKey = (o: Pick<StoredOrder, 'updated_at' | 'external_order_id'>) => `${o.updated_at}#${o.external_order_id}`;

function listAttributes(o: StoredOrder) {
  return {
    ...keys.listEntry(o.tenant, 'ORDERS', o.external_order_id, o.external_order_id),
    ...keys.facetEntry(o.tenant, 'ORDERS', o.external_order_id, changeKey(o), [o.processing_state]),
    list_view: {
      external_order_id: o.external_order_id,
      order_kind: o.order_kind,
      external_customer_id: o.external_customer_id,
      processing_state: o.processing_state,
      priority: o.priority,
      updated_at: o.updated_at,
    },
    match_keys: new Set(o.items.map((i) => i.external_variant_id)),
  };
}

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
 * an empty substitution list and the version's sort form (derived from `source_version`: orders
 * are compared in memory, never by a condition) are left out; `orderFromItem` puts them back.
 */
const storedAttributes = (order: StoredOrder) => {
  const { version_kind: _kind, version_key: _key, ...stored } = order;
  return Object.fromEntries(
    Object.entries(stored).filter(([name, value]) => value !== null && value !== undefined && !(name === 'substitutions' && (value as unknown[]).length === 0)),
  );
};

/**
 * The order is its events' publisher, and no event item of its own carries stream work: each
 * stream record of the order publishes the events its write produced (`webhookFanOut`). A write
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
  const entry = publication ? streamDueAttributes(order.pk, now) : due ? keys.orderDue(order.pk, due) : {};
  return { entity: 'order', ...storedAttributes(order), ...listAttributes(order), ...entry };
}

/** Where an order's due entry goes once its publication is done: the call's due entry, or nowhere. */
export function callDueAfterPublication(item: Record<string, unknown>): { gsi2pk: string; gsi2sk: string } | undefined {
  const order = orderFromItem(item);
  if (isFinal(order.processing_state)) return undefined;
  const due = dueOf(order, new Date(), streamRecoverySeconds());
  return due ? keys.orderDue(order.pk, due) : undefined;
}

/** The order's link from its customer (an order's customer never changes): written once, with the order. */
export const customerLink = (o: StoredOrder) => ({
  ...keys.customerOrder(o.tenant, o.external_customer_id, o.external_order_id),
  entity: 'customer_order',
  external_order_id: o.external_order_id,
});

const isEvent = (item: object) => (item as { entity?: unknown }).entity === 'event';

const revisionCondition = (expectedRevision: number) => ({
  ConditionExpression: '#revision = :revision',
  ExpressionAttributeNames: { '#revision': 'revision' },
  ExpressionAttributeValues: { ':revision': expectedRevision },
});

/**
 * The order's write: a compare-and-set of the order item alone when its change produced no
 * other item (a transaction would bill its write twice), else one transaction with its items.
 */
async function transact(order: StoredOrder, expectedRevision: number | 'new', now: Date, extra: readonly object[]): Promise<void> {
  const item = orderItem(order, now);
  if (expectedRevision !== 'new' && extra.length === 0) {
    const outcome = await writeConditionally({ put: { TableName: tableName(), Item: item, ...revisionCondition(expectedRevision) } });
    if (!outcome.written) throw new RevisionConflict(`order ${order.external_order_id} changed`);
    return;
  }
  const condition = expectedRevision === 'new' ? { ConditionExpression: 'attribute_not_exists(pk)' } : revisionCondition(expectedRevision);
  try {
    await tableClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName(), Item: item, ...condition } },
          // The order publishes its own events (orderItem); its other items may start stream work of their own (a confirmed result's write-back).
          ...extra.map((Item) => ({
            Put: { TableName: tableName(), Item: isEvent(Item) ? Item : withStreamDue(Item, now), ConditionExpression: 'attribute_not_exists(pk)' },
          })),
          ...(expectedRevision === 'new' ? [{ Put: { TableName: tableName(), Item: customerLink(order) } }] : []),
        ],
      }),
    );
  } catch (error) {
    // Another transaction on the order at the same moment is a change too: read again and decide again.
    if (conditionFailedAt(error, 0) || isTransactionConflict(error)) throw new RevisionConflict(`order ${order.external_order_id} changed`);
    if (extra.some((_, i) => conditionFailedAt(error, i + 1))) throw new AlreadyWrittenError(`an item of order ${order.external_order_id} was written before`);
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
    if (error instanceof RevisionConflict) return undefined;
    throw error;
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

/** Items of the order's own collection (attempts, events, result) by sort-key prefix. */
export async function orderCollection<T>(
  orderPk: string,
  prefix: string,
  options: { after?: string; limit?: number } = {},
): Promise<{ items: T[]; last?: string }> {
  const out = await tableClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': orderPk, ':prefix': prefix },
      ...(options.after ? { ExclusiveStartKey: keys.orderCollectionPosition(orderPk, options.after) } : {}),
      ...(options.limit ? { Limit: options.limit } : {}),
      ConsistentRead: true,
    }),
  );
  const items = (out.Items ?? []) as T[];
  return { items, ...(out.LastEvaluatedKey ? { last: String(out.LastEvaluatedKey.sk) } : {}) };
}

/**
 * The events an order's writes after revision `after` up to `through` produced (status events,
 * attempts, results), oldest first: what a stream record of the order publishes.
 */
export async function orderEventsBetween(orderPk: string, after: number, through: number): Promise<Record<string, unknown>[]> {
  const events: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out: QueryCommandOutput = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :through',
        // `$` sorts right after `#`: the range ends after the suffixed events of `through` (EVENT#000006#result).
        ExpressionAttributeValues: { ':pk': orderPk, ':from': keys.orderEvent(orderPk, after + 1).sk, ':through': `${keys.orderEvent(orderPk, through).sk}$` },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    events.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return events;
}

/**
 * A page of the order's history (its status events, oldest first): `after` is the previous
 * page's `last`. A page may hold fewer than `limit` entries (other events share the prefix).
 */
export async function orderHistory(orderPk: string, options: { after?: string; limit?: number } = {}): Promise<{ entries: HistoryEntry[]; last?: string }> {
  const page = await orderCollection<{ sk: string; event_type: string; occurred_at: string; data: Record<string, unknown> }>(orderPk, 'EVENT#', options);
  const entries = page.items.filter((e) => e.event_type === 'commerce.order.status_changed.v1').map(historyEntryOf);
  return { entries, ...(page.last ? { last: page.last } : {}) };
}

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
  if (!filters.processing_state && !filters.updated_since) return paginate(scope, page, { sources: sourcesOf('gsi1', keys.listShards(tenant, 'ORDERS')) });
  const states = filters.processing_state ? [filters.processing_state] : ORDER_STATES;
  return paginate(scope, page, {
    sources: states.flatMap((state) => sourcesOf('gsi3', keys.facetShards(tenant, 'ORDERS', [state]))),
    ...(filters.updated_since ? { from: new Date(filters.updated_since).toISOString() } : {}),
  });
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
      ProjectionExpression: 'list_view.external_order_id',
    }),
    idOf: (item) => String((item.list_view as { external_order_id: string }).external_order_id),
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
