/**
 * An order as stored, and the one pure rule for changing it: every change bumps the revision,
 * and a state change (allowed by the state machine) appends its
 * `commerce.order.status_changed.v1` event to the order's log (order-log.ts), which is the
 * order's outbox and its history at once.
 */
import { randomUUID } from 'node:crypto';
import type { OrderState } from '../api/order-states.ts';
import { InvalidTransitionError } from '../errors.ts';
import { keys } from '../storage/keys.ts';
import { sortableVersion } from '../versioning/source-version.ts';
import { type VersionAttributes, versionAttributes } from '../versioning/version-attributes.ts';
import { encodeEntry, entryRevision, type LogEntry, lastStatus, spillPoint, statusEventId } from './order-log.ts';
import type { Order, OrderInput, OrderItem, OrderKind } from './order-schemas.ts';
import type { Substitution } from './qualification.ts';
import { canTransition, isFinal } from './state-machine.ts';

export type { HistoryEntry } from './order-log.ts';

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
  /** While in a call whose dial the platform throttled: when the same attempt is dialled again. */
  redial_at?: string | undefined;
  /** When the order's content last changed by a PATCH or upsert: the variant-index grace counts from here (else from creation). */
  content_changed_at?: string | undefined;
  created_at: string;
  updated_at: string;
  /** The events the order's writes produced, encoded (order-log.ts): its outbox and its history. */
  log: string[];
  /** The revision its events are known published through (its last publication marker's): a marked record publishes what came after. */
  published?: number | undefined;
}

/** A finished call's records, written with the change that records it: its attempt, and its result when the order completes. */
export interface CallRecords {
  attempt: { attempt: number } & Record<string, unknown>;
  result?: Record<string, unknown>;
  /** The revision of the `in_call` change that started the call: its status event caused these. */
  causeRevision: number;
}

export interface OrderChange {
  /** The new state, when the state changes. */
  to?: OrderState;
  reason?: string | null;
  /** Attributes replaced on the order. */
  set?: Partial<StoredOrder>;
  /** A finished call's attempt (and result) recorded with the change, each with its event in the log. */
  calls?: CallRecords;
  /** What caused the change: the partner's request id; by default the order's last status event (what a worker acted on). */
  causationId?: string | null;
}

/** Where orders are read and written: the table, or memory in tests of the domain. */
export interface OrderRepository {
  /** A strongly consistent read. */
  read(tenant: string, id: string): Promise<StoredOrder | undefined>;
  /** Creates the order in `received` with its first status event in its log; undefined when it exists already. */
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

/** The order of a stored item (or stream image): its index and list attributes left out, what the item does not store (nulls, no substitutions, the version's sort form, what its newest state change says) put back. */
export const orderFromItem = (item: Record<string, unknown>): StoredOrder => {
  const { entity: _e, list_view: _v, match_keys: _m, gsi1pk: _g1, gsi1sk: _g2, gsi2pk: _d1, gsi2sk: _d2, gsi3pk: _f1, gsi3sk: _f2, wt: _t, ...order } = item;
  const nulls = Object.fromEntries(NULLABLE_ORDER_FIELDS.map((field) => [field, order[field] ?? null]));
  const { kind, key } = sortableVersion(String(order.source_version));
  const log = (order.log as string[] | undefined) ?? [];
  const status = lastStatus(log);
  return {
    ...order,
    ...nulls,
    version_kind: kind,
    version_key: key,
    substitutions: order.substitutions ?? [],
    log,
    ...(status ? { status_revision: status.revision, state_reason: status.reason } : {}),
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

/** When the order next needs the scheduler: a qualification retry, its contact time, or the check for a stuck or unrecorded call. */
export function dueOf(o: StoredOrder, now: Date, streamRecoverySeconds = STREAM_RECOVERY_SECONDS): Date | undefined {
  // Made final during a call (a cancel, an erasure) whose attempt is not recorded yet: its deadline is when it is.
  if (isFinal(o.processing_state)) return o.call_deadline_at ? new Date(o.call_deadline_at) : undefined;
  if ((o.processing_state === 'received' || o.processing_state === 'validated') && o.retry_qualification_at) return new Date(o.retry_qualification_at);
  // The stream moves these on within moments; should its record be skipped after its retries,
  // the call scheduler finds the order here and takes the step itself.
  if (o.processing_state === 'received' || o.processing_state === 'validated') return new Date(now.getTime() + streamRecoverySeconds * 1000);
  if (o.processing_state === 'scheduled' && o.next_contact_at) return new Date(o.next_contact_at);
  if (o.processing_state === 'in_call' && o.redial_at) return new Date(o.redial_at);
  if (o.processing_state === 'in_call') return new Date(o.call_deadline_at ?? now.getTime() + STUCK_CALL_SECONDS * 1000);
  return undefined;
}

/** The status entry of a state change; its causation is the previous status event unless said otherwise. */
const statusEntry = (revision: number, to: OrderState, reason: string | null, causation: string | null | undefined, now: Date): LogEntry => ({
  kind: 'status',
  revision,
  to,
  reason,
  at: now.toISOString(),
  ...(causation !== undefined ? { causation } : {}),
});

/** An order as its creation writes it: in `received` at revision 1, with its first status event in its log. */
export function orderCreation(order: StoredOrder, now: Date, causationId: string | null): { created: StoredOrder; items: object[] } {
  const log = [encodeEntry(statusEntry(1, 'received', null, causationId, now))];
  const created: StoredOrder = { ...order, revision: 1, processing_state: 'received', status_revision: 1, log };
  return { created, items: [] };
}

/** A stretch of an order's log moved out of the order item: written before the order that no longer holds it. */
export const historyItem = (orderPk: string, entries: string[]) => ({
  ...keys.orderHistory(orderPk, entryRevision(entries[0]!)),
  entity: 'order_history',
  log: entries,
});

/** The id of the order's newest status event: the cause of whatever a worker does next with it. */
export const lastStatusEventId = (order: Pick<StoredOrder, 'pk' | 'status_revision'>): string => statusEventId(order.pk, order.status_revision);

/**
 * The order after `change`, and the items written with it: a finished call's attempt and
 * result, and a history item when the log grew long. The events the change produced (its
 * state change, the call's attempt and result, in that order) are appended to the order's log.
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
  const correlation = change.set?.correlation_id;
  const calls = change.calls;
  const entries: LogEntry[] = [
    ...(correlation !== undefined && correlation !== order.correlation_id ? [{ kind: 'correlation' as const, revision, before: order.correlation_id }] : []),
    ...(stateChanges ? [statusEntry(revision, to, reason, change.causationId, now)] : []),
    ...(calls ? [{ kind: 'attempt' as const, revision, attempt: calls.attempt.attempt, at, causeRevision: calls.causeRevision }] : []),
    ...(calls?.result ? [{ kind: 'result' as const, revision, at, causeRevision: calls.causeRevision }] : []),
  ];
  const whole = [...order.log, ...entries.map(encodeEntry)];
  const cut = spillPoint(whole);
  const next: StoredOrder = {
    ...order,
    ...change.set,
    revision,
    updated_at: at,
    log: whole.slice(cut),
    ...(stateChanges ? { processing_state: to, state_reason: reason, status_revision: revision } : {}),
  };
  const items = [...(cut ? [historyItem(order.pk, whole.slice(0, cut))] : []), ...(calls ? [calls.attempt, ...(calls.result ? [calls.result] : [])] : [])];
  return { next, items };
}
