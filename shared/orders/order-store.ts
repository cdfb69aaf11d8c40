/**
 * Orders in the table: the typed reader, and the one write of an order — a compare-and-set on
 * its `revision`, in one transaction with the items its change produces (status event,
 * attempts, result). The order's history is its status events, read back page by page.
 */
import { GetCommand, QueryCommand, type QueryCommandOutput, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError, RevisionConflict } from '../errors.ts';
import { streamRecoverySeconds, tableClient, tableName } from '../storage/clients.ts';
import { conditionFailedAt, succeededUnlessConditionFailed } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';
import { paginate } from '../storage/pagination.ts';
import { withStreamDue } from '../stream/stream-work.ts';
import type { ListPosition } from './order-jobs.ts';
import type { Condition } from '../storage/versioned-write.ts';
import {
  applyOrderChange,
  dueOf,
  type HistoryEntry,
  historyEntryOf,
  type OrderChange,
  type OrderRepository,
  orderFromItem,
  type StoredOrder,
  statusEvent,
} from './order.ts';
import type { OrderState } from './state-machine.ts';
import { isTransactionConflict } from '../storage/transient.ts';

function listAttributes(o: StoredOrder) {
  return {
    ...keys.listEntry(o.tenant, 'ORDERS', o.external_order_id, o.external_order_id),
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

/** The order as its item: with its list entry and, while it waits for work, its due entry. */
export function orderItem(order: StoredOrder, now: Date) {
  const due = dueOf(order, now, streamRecoverySeconds());
  return { entity: 'order', ...order, ...listAttributes(order), ...(due ? keys.orderDue(order.pk, due.toISOString()) : {}) };
}

async function transact(order: StoredOrder, expectedRevision: number | 'new', now: Date, extra: readonly object[]): Promise<void> {
  const item = orderItem(order, now);
  const condition =
    expectedRevision === 'new'
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : {
          ConditionExpression: '#revision = :revision',
          ExpressionAttributeNames: { '#revision': 'revision' },
          ExpressionAttributeValues: { ':revision': expectedRevision },
        };
  try {
    await tableClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName(), Item: item, ...condition } },
          ...extra.map((Item) => ({ Put: { TableName: tableName(), Item: withStreamDue(Item, now), ConditionExpression: 'attribute_not_exists(pk)' } })),
        ],
      }),
    );
  } catch (error) {
    // Another transaction on the order at the same moment is a change too: read again and decide again.
    if (conditionFailedAt(error, 0) || isTransactionConflict(error)) throw new RevisionConflict(`order ${order.external_order_id} changed`);
    throw error;
  }
}

/**
 * Writes `change` onto the order as it was read, with the status event when the state changes. Returns the order as written.
 * @throws RevisionConflict when the order changed since it was read
 * @throws InvalidTransitionError for a transition the state machine does not allow
 */
export async function writeOrder(order: StoredOrder, change: OrderChange, now: Date): Promise<StoredOrder> {
  const { next, items } = applyOrderChange(order, change, now);
  await transact(next, order.revision, now, items);
  return next;
}

/** Creates the order in `received` with its first status event; undefined if it exists. */
export async function createOrder(order: StoredOrder, now: Date, causationId: string | null): Promise<StoredOrder | undefined> {
  const created: StoredOrder = {
    ...order,
    revision: 1,
    processing_state: 'received',
    status_revision: 1,
  };
  try {
    await transact(created, 'new', now, [statusEvent(created, 1, null, 'received', null, causationId, now)]);
    return created;
  } catch (error) {
    if (error instanceof RevisionConflict) return undefined;
    throw error;
  }
}

/** After an erasure: the result of an order no longer keeps the sandbox scenario (the phone's last digit). */
export async function forgetResultScenario(orderPk: string): Promise<void> {
  await succeededUnlessConditionFailed(
    tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.orderResult(orderPk),
        UpdateExpression: 'REMOVE scenario',
        ConditionExpression: 'attribute_exists(pk)',
      }),
    ),
  );
}

/** The table as the order processing's repository. */
export const dynamoOrderRepository: OrderRepository = {
  read: (tenant, id) => readOrder(tenant, id, true),
  write: writeOrder,
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
 * A page of the order's history (its status events, oldest first): `after` is the previous
 * page's `last`. A page may hold fewer than `limit` entries (other events share the prefix).
 */
export async function orderHistory(orderPk: string, options: { after?: string; limit?: number } = {}): Promise<{ entries: HistoryEntry[]; last?: string }> {
  const page = await orderCollection<{ sk: string; event_type: string; occurred_at: string; data: Record<string, unknown> }>(orderPk, 'EVENT#', options);
  const entries = page.items.filter((e) => e.event_type === 'commerce.order.status_changed.v1').map(historyEntryOf);
  return { entries, ...(page.last ? { last: page.last } : {}) };
}

export async function listOrders(
  tenant: string,
  filters: { processing_state?: OrderState | undefined; updated_since?: string | undefined },
  page: { limit: number; cursor?: string | undefined },
) {
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (filters.processing_state) {
    clauses.push('#view.processing_state = :state');
    values[':state'] = filters.processing_state;
  }
  if (filters.updated_since) {
    clauses.push('#view.updated_at >= :since');
    values[':since'] = new Date(filters.updated_since).toISOString();
  }
  if (clauses.length) names['#view'] = 'list_view';
  return paginate({ tenant, list: 'orders', filters: { ...filters } }, page, {
    shards: keys.listShards(tenant, 'ORDERS'),
    ...(clauses.length ? { filter: { ConditionExpression: clauses.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values } } : {}),
  });
}

/**
 * One bounded page of the ids of the tenant's orders whose list view matches `filter`: at
 * most `limit` list entries are read (DynamoDB applies the limit before the filter), shard
 * after shard, so a page costs the same on any tenant and a small tenant takes one page.
 * `next` is null once every shard has been walked.
 */
export async function orderIdsPage(
  tenant: string,
  filter: Condition,
  from: ListPosition,
  limit: number,
): Promise<{ ids: string[]; next: ListPosition | null }> {
  const shards = keys.listShards(tenant, 'ORDERS');
  const ids: string[] = [];
  let position: ListPosition | null = from;
  for (let budget = limit; position && budget > 0; ) {
    const { Items, LastEvaluatedKey, ScannedCount }: QueryCommandOutput = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: '#gpk = :gpk',
        FilterExpression: filter.ConditionExpression,
        ExpressionAttributeNames: { '#gpk': 'gsi1pk', ...filter.ExpressionAttributeNames },
        ExpressionAttributeValues: { ':gpk': shards[position.shard], ...filter.ExpressionAttributeValues },
        ProjectionExpression: 'list_view.external_order_id',
        Limit: budget,
        ...(position.after ? { ExclusiveStartKey: position.after } : {}),
      }),
    );
    ids.push(...(Items ?? []).map((i) => String((i.list_view as { external_order_id: string }).external_order_id)));
    budget -= Math.max(1, ScannedCount ?? 0);
    if (LastEvaluatedKey) position = { shard: position.shard, after: LastEvaluatedKey };
    else position = position.shard + 1 < shards.length ? { shard: position.shard + 1 } : null;
  }
  return { ids, next: position };
}
