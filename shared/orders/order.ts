/**
 * An order as stored, and the one pure rule for changing it: every change bumps the
 * revision, and a state change (allowed by the state machine) writes its
 * `commerce.order.status_changed.v1` event. Those events are the order's history: each its own
 * small item beside the order, kept as long as the order, so no number of changes can grow the
 * order item toward DynamoDB's 400 KB limit.
 */
import { randomUUID } from 'node:crypto';
import { InvalidTransitionError } from '../errors.ts';
import { eventIdFor, eventItem } from '../events/outbox.ts';
import { keys } from '../storage/keys.ts';
import { sortableVersion } from '../versioning/source-version.ts';
import { type VersionAttributes, versionAttributes } from '../versioning/version-attributes.ts';
import type { Order, OrderInput, OrderItem, OrderKind } from './order-schemas.ts';
import type { Substitution } from './qualification.ts';
import { canTransition, type OrderState } from './state-machine.ts';

/** One state change of an order, as read back from its status event. */
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
  order_kind: OrderKind;
  external_customer_id: string;
  items: OrderItem[];
  contact_permission: OrderInput['contact_permission'];
  contact_not_before: string | null;
  priority: number;
  confidence: string | null;
  processing_state: OrderState;
  state_reason: string | null;
  revision: number;
  /** The revision of the newest state change: its status event is the cause of a worker's next step. */
  status_revision: number;
  correlation_id: string;
  call_attempts: number;
  /**
   * Attempts that never reached the customer (`failed`: the call platform lost them, or the
   * function running them died); they do not count toward `max_call_attempts`.
   */
  lost_attempts?: number | undefined;
  next_contact_at: string | null;
  substitutions: Substitution[];
  /** While a variant of the order is not in the variant index yet: when to qualify again. */
  retry_qualification_at?: string | undefined;
  /** While in a call: when the call platform's longest call would have ended; past it the attempt is recovered as failed and retried. */
  call_deadline_at?: string | null | undefined;
  /** The attempt whose dial was claimed: set just before the call platform is asked to call. */
  dialing?: number | undefined;
  /** When the order's content last changed by a PATCH or upsert: the variant-index grace counts from here (else from creation). */
  content_changed_at?: string | undefined;
  created_at: string;
  updated_at: string;
}

export interface OrderChange {
  /** The new state, when the state changes. */
  to?: OrderState;
  reason?: string | null;
  /** Attributes replaced on the order. */
  set?: Partial<StoredOrder>;
  /** Further items written in the same transaction (attempts, results, other events). */
  alsoPut?: (orderPk: string, revision: number) => object[];
  /** What caused the change: the partner's request id; by default the order's last status event (what a worker acted on). */
  causationId?: string | null;
}

/** Where orders are read and written: the table, or memory in tests of the domain. */
export interface OrderRepository {
  /** A strongly consistent read. */
  read(tenant: string, id: string): Promise<StoredOrder | undefined>;
  /** Creates the order in `received` with its first status event; undefined when it exists already. */
  create(order: StoredOrder, now: Date, causationId: string | null): Promise<StoredOrder | undefined>;
  /**
   * Writes `change` onto the order as it was read (compare-and-set on its revision).
   * @throws RevisionConflict when the order changed since it was read
   */
  write(order: StoredOrder, change: OrderChange, now: Date): Promise<StoredOrder>;
  /**
   * Writes `next` and the items its changes produced over the order as `base` was read
   * (compare-and-set on its revision): several changes decided in one run, written once.
   * @throws RevisionConflict when the order changed since it was read
   */
  commit(base: StoredOrder, next: StoredOrder, items: readonly object[], now: Date): Promise<StoredOrder>;
}

/** The order's fields that are null rather than absent: the item does not store a null. */
const NULLABLE_ORDER_FIELDS = ['contact_not_before', 'confidence', 'state_reason', 'next_contact_at'] as const satisfies readonly (keyof StoredOrder)[];

/** The order of a stored item (or stream image): its index and list attributes left out, what the item does not store (nulls, no substitutions, the version's sort form) put back. */
export const orderFromItem = (item: Record<string, unknown>): StoredOrder => {
  const {
    entity: _e,
    list_view: _v,
    match_keys: _m,
    gsi1pk: _g1,
    gsi1sk: _g2,
    gsi2pk: _d1,
    gsi2sk: _d2,
    gsi3pk: _f1,
    gsi3sk: _f2,
    wt: _t,
    history,
    ...order
  } = item;
  // Orders written before the history moved out kept it inline; their newest entry names the status revision.
  const legacy = history as { revision: number }[] | undefined;
  const nulls = Object.fromEntries(NULLABLE_ORDER_FIELDS.map((field) => [field, order[field] ?? null]));
  const { kind, key } = sortableVersion(String(order.source_version));
  return {
    ...order,
    ...nulls,
    version_kind: kind,
    version_key: key,
    substitutions: order.substitutions ?? [],
    status_revision: order.status_revision ?? legacy?.at(-1)?.revision ?? 1,
  } as unknown as StoredOrder;
};

/**
 * What an order keeps of an erased customer: no contact permission reference, and a content
 * hash over what is left (a hash over the reference would let a guess be confirmed).
 */
export function erasedCustomerFields(order: StoredOrder): Pick<StoredOrder, 'contact_permission' | 'content_sha256'> {
  const { reference: _erased, ...contact_permission } = order.contact_permission;
  return { contact_permission, content_sha256: versionAttributes(order.source_version, contentOf({ ...order, contact_permission })).content_sha256 };
}

/** What a rejection writes besides the state: an order rejected for an erased customer keeps nothing of them. */
export const rejectionFields = (order: StoredOrder, reason: string | null): Partial<StoredOrder> =>
  reason === 'customer_anonymized' ? erasedCustomerFields(order) : {};

/** How long an order may wait in `received` or `validated` for the stream before the call scheduler takes the step. */
export const STREAM_RECOVERY_SECONDS = 5 * 60;

/** How long a call may stay in `in_call` when the order does not say (orders written before `call_deadline_at`). */
export const STUCK_CALL_SECONDS = 15 * 60;

export type OrderContent = Pick<
  StoredOrder,
  'order_kind' | 'external_customer_id' | 'items' | 'contact_permission' | 'contact_not_before' | 'priority' | 'confidence'
>;

/** The partner's content of an order: what its source_version versions. */
export const contentOf = (o: OrderContent): OrderContent => ({
  order_kind: o.order_kind,
  external_customer_id: o.external_customer_id,
  items: o.items,
  contact_permission: o.contact_permission,
  contact_not_before: o.contact_not_before,
  priority: o.priority,
  confidence: o.confidence,
});

export const newCorrelationId = () => `cor_${randomUUID()}`;

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

/** When the order next needs the scheduler: a qualification retry, its contact time, or the check for a stuck call. */
export function dueOf(o: StoredOrder, now: Date, streamRecoverySeconds = STREAM_RECOVERY_SECONDS): Date | undefined {
  if ((o.processing_state === 'received' || o.processing_state === 'validated') && o.retry_qualification_at) return new Date(o.retry_qualification_at);
  // The stream moves these on within moments; should its record be skipped after its retries,
  // the call scheduler finds the order here and takes the step itself.
  if (o.processing_state === 'received' || o.processing_state === 'validated') return new Date(now.getTime() + streamRecoverySeconds * 1000);
  if (o.processing_state === 'scheduled' && o.next_contact_at) return new Date(o.next_contact_at);
  if (o.processing_state === 'in_call') return new Date(o.call_deadline_at ?? now.getTime() + STUCK_CALL_SECONDS * 1000);
  return undefined;
}

export const statusEvent = (
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
    retainedWithOwner: true,
  });

/** An order as its creation writes it: in `received` at revision 1, with its first status event. */
export function orderCreation(order: StoredOrder, now: Date, causationId: string | null): { created: StoredOrder; items: object[] } {
  const created: StoredOrder = { ...order, revision: 1, processing_state: 'received', status_revision: 1 };
  return { created, items: [statusEvent(created, 1, null, 'received', null, causationId, now)] };
}

/** A status event read back as the history entry it records. */
export const historyEntryOf = (event: { sk: string; occurred_at: string; data: Record<string, unknown> }): HistoryEntry => ({
  revision: Number(event.sk.slice('EVENT#'.length)),
  from: (event.data.previous_state as OrderState | null) ?? null,
  to: event.data.processing_state as OrderState,
  reason: (event.data.reason as string | null) ?? null,
  at: event.occurred_at,
});

/** The id of the order's newest status event: the cause of whatever a worker does next with it. */
export const lastStatusEventId = (order: Pick<StoredOrder, 'pk' | 'status_revision'>): string =>
  eventIdFor(order.pk, keys.orderEvent(order.pk, order.status_revision).sk);

/**
 * The order after `change`, and the items written with it (its status event when the state
 * changes, then the change's own items).
 * @throws InvalidTransitionError for a transition the state machine does not allow
 */
export function applyOrderChange(order: StoredOrder, change: OrderChange, now: Date): { next: StoredOrder; items: object[] } {
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
    ...(stateChanges ? { processing_state: to, state_reason: reason, status_revision: revision } : {}),
  };
  const causation = change.causationId !== undefined ? change.causationId : lastStatusEventId(order);
  const events = stateChanges ? [statusEvent(next, revision, order.processing_state, to, reason, causation, now)] : [];
  return { next, items: [...events, ...(change.alsoPut?.(order.pk, revision) ?? [])] };
}
