/**
 * Order reads and writes. Every write of an order is a compare-and-set on its `revision`,
 * and every state change is written in one transaction with its
 * `commerce.order.status_changed.v1` event item (the outbox) and a history entry, so the
 * stored history and the emitted events always match.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { InvalidTransitionError, NotFoundError, StaleVersionError, ValidationError } from '../errors.ts';
import { compareSourceVersions } from '../versioning/source-version.ts';
import { eventItem } from '../events/outbox.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { conditionFailedAt, refusedVersionOutcome, versionAttributes, type VersionAttributes } from '../storage/versioned-write.ts';
import { CallAttemptSchema, ResultSchema, type CallAttempt, type Order, type OrderInput, type OrderItem, type OrderResult } from './order-schemas.ts';
import { decodeCursor, encodeCursor, paginate } from '../storage/pagination.ts';
import type { Substitution } from './qualification.ts';
import { canTransition, isFinal, isUpdatable, type OrderState } from './state-machine.ts';

export interface HistoryEntry {
  revision: number;
  from: OrderState | null;
  to: OrderState;
  reason: string | null;
  at: string;
}

export interface StoredOrder extends VersionAttributes {
  pk: string;
  sk: string;
  tenant: string;
  external_order_id: string;
  order_kind: OrderInput['order_kind'];
  external_customer_id: string;
  items: OrderItem[];
  contact_permission: OrderInput['contact_permission'];
  contact_not_before: string | null;
  priority: number;
  confidence: string | null;
  processing_state: OrderState;
  state_reason: string | null;
  revision: number;
  history: HistoryEntry[];
  correlation_id: string;
  call_attempts: number;
  next_contact_at: string | null;
  substitutions: Substitution[];
  /** While a variant of the order is not in the variant index yet: when to qualify again. */
  retry_qualification_at?: string | undefined;
  created_at: string;
  updated_at: string;
}

/** The partner's content of an order: what its source_version versions. */
const contentOf = (
  o: Pick<StoredOrder, 'order_kind' | 'external_customer_id' | 'items' | 'contact_permission' | 'contact_not_before' | 'priority' | 'confidence'>,
) => ({
  order_kind: o.order_kind,
  external_customer_id: o.external_customer_id,
  items: o.items,
  contact_permission: o.contact_permission,
  contact_not_before: o.contact_not_before,
  priority: o.priority,
  confidence: o.confidence,
});

const newCorrelationId = () => `cor_${randomUUID()}`;

export const orderView = (o: StoredOrder): Order => ({
  external_order_id: o.external_order_id,
  order_kind: o.order_kind,
  external_customer_id: o.external_customer_id,
  items: o.items,
  contact_permission: o.contact_permission,
  source_version: o.source_version,
  contact_not_before: o.contact_not_before,
  priority: o.priority,
  confidence: o.confidence,
  processing_state: o.processing_state,
  state_reason: o.state_reason,
  next_contact_at: o.next_contact_at,
  call_attempts: o.call_attempts,
  correlation_id: o.correlation_id,
  created_at: o.created_at,
  updated_at: o.updated_at,
});

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
  return Item ? fromItem(Item) : undefined;
}

export async function getOrder(tenant: string, id: string): Promise<StoredOrder> {
  const order = await readOrder(tenant, id);
  if (!order) throw new NotFoundError(`No order ${id}.`);
  return order;
}

const fromItem = (item: Record<string, unknown>): StoredOrder => {
  const { entity: _e, list_view: _v, match_keys: _m, gsi1pk: _g1, gsi1sk: _g2, gsi2pk: _d1, gsi2sk: _d2, ...order } = item;
  return order as unknown as StoredOrder;
};

/** Thrown when another writer changed the order first; the caller re-reads and decides again. */
export class RevisionConflict extends Error {
  override readonly name = 'RevisionConflict';
}

/** How long a call may stay in `in_call` before the scheduler records it as failed. */
export const STUCK_CALL_SECONDS = 15 * 60;

export interface OrderChange {
  /** The new state, when the state changes. */
  to?: OrderState;
  reason?: string | null;
  /** Attributes replaced on the order. */
  set?: Partial<StoredOrder>;
  /** Further items written in the same transaction (attempts, results, other events). */
  alsoPut?: (orderPk: string, revision: number) => object[];
  causationId?: string | null;
}

/** When the order next needs the scheduler: a qualification retry, its contact time, or the check for a stuck call. */
function dueOf(o: StoredOrder, now: Date): Date | undefined {
  if (o.processing_state === 'received' && o.retry_qualification_at) return new Date(o.retry_qualification_at);
  if (o.processing_state === 'scheduled' && o.next_contact_at) return new Date(o.next_contact_at);
  if (o.processing_state === 'in_call') return new Date(now.getTime() + STUCK_CALL_SECONDS * 1000);
  return undefined;
}

const statusEvent = (
  order: StoredOrder,
  revision: number,
  from: OrderState | null,
  to: OrderState,
  reason: string | null,
  causationId: string | null,
  now: Date,
) =>
  eventItem(keys.orderEvent(order.pk, revision), {
    event_type: 'commerce.order.status_changed.v1',
    tenant: order.tenant,
    external_order_id: order.external_order_id,
    correlation_id: order.correlation_id,
    causation_id: causationId,
    data: { previous_state: from, processing_state: to, reason },
    occurredAt: now,
  });

async function transact(order: StoredOrder, expectedRevision: number | 'new', now: Date, extra: readonly object[]): Promise<void> {
  const due = dueOf(order, now);
  const item = { entity: 'order', ...order, ...listAttributes(order), ...(due ? keys.orderDue(order.pk, due.toISOString()) : {}) };
  try {
    await tableClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: item,
              ...(expectedRevision === 'new'
                ? { ConditionExpression: 'attribute_not_exists(pk)' }
                : {
                    ConditionExpression: '#revision = :revision',
                    ExpressionAttributeNames: { '#revision': 'revision' },
                    ExpressionAttributeValues: { ':revision': expectedRevision },
                  }),
            },
          },
          ...extra.map((Item) => ({ Put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' } })),
        ],
      }),
    );
  } catch (error) {
    if (conditionFailedAt(error, 0)) throw new RevisionConflict(`order ${order.external_order_id} changed`);
    throw error;
  }
}

/**
 * Writes `change` onto the order as it was read (compare-and-set on its revision), with the
 * status event and a history entry when the state changes. Returns the order as written.
 * @throws RevisionConflict when the order changed since it was read
 * @throws InvalidTransitionError for a transition the state machine does not allow
 */
export async function writeOrder(order: StoredOrder, change: OrderChange, now: Date): Promise<StoredOrder> {
  const revision = order.revision + 1;
  const at = now.toISOString();
  const to = change.to;
  const stateChanges = to !== undefined && to !== order.processing_state;
  if (stateChanges && !canTransition(order.processing_state, to)) {
    throw new InvalidTransitionError(`An order cannot go from ${order.processing_state} to ${to}.`);
  }
  const reason = change.reason ?? null;
  const next: StoredOrder = {
    ...order,
    ...change.set,
    revision,
    updated_at: at,
    ...(stateChanges
      ? { processing_state: to, state_reason: reason, history: [...order.history, { revision, from: order.processing_state, to, reason, at }] }
      : {}),
  };
  const events = stateChanges ? [statusEvent(next, revision, order.processing_state, to, reason, change.causationId ?? null, now)] : [];
  await transact(next, order.revision, now, [...events, ...(change.alsoPut?.(order.pk, revision) ?? [])]);
  return next;
}

/** Creates the order in `received` with its first history entry and event; false if it exists. */
async function createOrder(order: StoredOrder, now: Date): Promise<StoredOrder | undefined> {
  const created: StoredOrder = {
    ...order,
    revision: 1,
    processing_state: 'received',
    history: [{ revision: 1, from: null, to: 'received', reason: null, at: now.toISOString() }],
  };
  try {
    await transact(created, 'new', now, [statusEvent(created, 1, null, 'received', null, null, now)]);
    return created;
  } catch (error) {
    if (error instanceof RevisionConflict) return undefined;
    throw error;
  }
}

export type Requalify = (order: StoredOrder) => Promise<{ to: OrderState; reason: string | null; substitutions: Substitution[] }>;
export type SubmitOutcome = 'created' | 'updated' | 'unchanged';

type OrderContent = ReturnType<typeof contentOf>;

/**
 * Applies newer content to an existing order under the rules of PATCH: only while it is
 * neither final nor in a call, requalified at once (validated or rejected).
 */
async function applyContent(existing: StoredOrder, content: OrderContent, sourceVersion: string, now: Date, requalify: Requalify) {
  const version = versionAttributes(sourceVersion, content);
  if (refusedVersionOutcome(existing, version) === 'unchanged') return { order: existing, outcome: 'unchanged' as const };
  if (!isUpdatable(existing.processing_state)) {
    throw new InvalidTransitionError(`The order is ${existing.processing_state}; it can no longer be changed.`);
  }
  const candidate: StoredOrder = { ...existing, ...content, ...version, correlation_id: newCorrelationId() };
  const q = await requalify(candidate);
  const order = await writeOrder(
    existing,
    {
      set: { ...content, ...version, correlation_id: candidate.correlation_id, substitutions: q.substitutions, next_contact_at: null },
      to: q.to,
      reason: q.reason,
    },
    now,
  );
  return { order, outcome: 'updated' as const };
}

/**
 * POST /orders: creates the order in `received`, or (an existing id) applies a newer
 * version under the rules of PATCH; the same version with identical content is unchanged.
 */
export async function submitOrder(tenant: string, input: OrderInput, now: Date, requalify: Requalify): Promise<{ order: StoredOrder; outcome: SubmitOutcome }> {
  const content: OrderContent = contentOf({
    order_kind: input.order_kind,
    external_customer_id: input.external_customer_id,
    items: input.items,
    contact_permission: input.contact_permission,
    contact_not_before: input.contact_not_before ?? null,
    priority: input.priority,
    confidence: input.confidence ?? null,
  });
  const at = now.toISOString();
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await readOrder(tenant, input.external_order_id, true);
    if (!existing) {
      const created = await createOrder(
        {
          ...keys.order(tenant, input.external_order_id),
          ...content,
          ...versionAttributes(input.source_version, content),
          tenant,
          external_order_id: input.external_order_id,
          processing_state: 'received',
          state_reason: null,
          revision: 0,
          history: [],
          correlation_id: newCorrelationId(),
          call_attempts: 0,
          next_contact_at: null,
          substitutions: [],
          created_at: at,
          updated_at: at,
        },
        now,
      );
      if (created) return { order: created, outcome: 'created' };
      continue;
    }
    if (existing.order_kind !== input.order_kind) {
      throw new ValidationError([{ pointer: '/order_kind', message: `cannot change: the order is a ${existing.order_kind}` }]);
    }
    try {
      return await applyContent(existing, content, input.source_version, now, requalify);
    } catch (error) {
      if (!(error instanceof RevisionConflict)) throw error;
    }
  }
  throw new RevisionConflict('the order kept changing; retry with the same Idempotency-Key');
}

export interface OrderPatchInput {
  source_version: string;
  items?: OrderItem[] | undefined;
  priority?: number | undefined;
  contact_not_before?: string | null | undefined;
  confidence?: string | null | undefined;
}

/** PATCH /orders/{id}: the fields sent replace the stored ones, versioned, requalified at once. */
export async function patchOrder(tenant: string, id: string, patch: OrderPatchInput, now: Date, requalify: Requalify) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await readOrder(tenant, id, true);
    if (!existing) throw new NotFoundError(`No order ${id}.`);
    const content = contentOf({
      ...existing,
      ...(patch.items !== undefined ? { items: patch.items } : {}),
      ...(patch.priority !== undefined ? { priority: patch.priority } : {}),
      ...(patch.contact_not_before !== undefined ? { contact_not_before: patch.contact_not_before } : {}),
      ...(patch.confidence !== undefined ? { confidence: patch.confidence } : {}),
    });
    try {
      return await applyContent(existing, content, patch.source_version, now, requalify);
    } catch (error) {
      if (!(error instanceof RevisionConflict)) throw error;
    }
  }
  throw new RevisionConflict('the order kept changing; retry with the same Idempotency-Key');
}

/**
 * Cancels with compare-and-set: re-reads and retries when a worker moved the order first, so
 * a cancel is never lost against a concurrent state change. Cancelling a cancelled order
 * answers it again; any other final state is 409.
 */
export async function cancelOrder(tenant: string, id: string, reason: string, sourceVersion: string | undefined, now: Date): Promise<StoredOrder> {
  for (;;) {
    const order = await readOrder(tenant, id, true);
    if (!order) throw new NotFoundError(`No order ${id}.`);
    if (order.processing_state === 'cancelled') return order;
    if (isFinal(order.processing_state)) throw new InvalidTransitionError(`The order is ${order.processing_state}; it cannot be cancelled.`);
    if (sourceVersion !== undefined && compareSourceVersions(sourceVersion, order.source_version) < 0) throw new StaleVersionError(order.source_version);
    try {
      return await writeOrder(order, { to: 'cancelled', reason, set: { next_contact_at: null } }, now);
    } catch (error) {
      if (!(error instanceof RevisionConflict)) throw error;
    }
  }
}

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
      ...(options.after ? { ExclusiveStartKey: { pk: orderPk, sk: options.after } } : {}),
      ...(options.limit ? { Limit: options.limit } : {}),
      ConsistentRead: true,
    }),
  );
  const items = (out.Items ?? []) as T[];
  return { items, ...(out.LastEvaluatedKey ? { last: String(out.LastEvaluatedKey.sk) } : {}) };
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

export async function getResult(tenant: string, id: string): Promise<OrderResult> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.orderResult(keys.order(tenant, id).pk) }));
  if (!Item) throw new NotFoundError(`No result for order ${id} (yet): it exists once the order is completed.`);
  return ResultSchema.parse(Item);
}

/** No recordings or transcripts are kept by this build; attempts themselves are kept with the order. */
export const REPORTS_POLICY = {
  recordings: { available: false, retention_days: 0 },
  transcripts: { available: false, retention_days: 0 },
  how_to_request:
    'Recordings and transcripts are not made by the sandbox dialer. Where the voice platform keeps them, request them through support quoting the order id and its correlation_id; they are deleted after their retention period.',
};

export async function listCalls(tenant: string, id: string, page: { limit: number; cursor?: string | undefined }) {
  const order = await getOrder(tenant, id);
  const scope = { tenant, list: 'calls', filters: { order: id } };
  const after = await decodeCursor(scope, page.cursor);
  const { items, last } = await orderCollection<CallAttempt>(order.pk, 'ATTEMPT#', { ...(after ? { after } : {}), limit: page.limit });
  return {
    data: items.map((a) => CallAttemptSchema.parse(a)),
    next_cursor: last ? await encodeCursor(scope, last) : null,
  };
}
