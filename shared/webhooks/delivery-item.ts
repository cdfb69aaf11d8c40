/** A delivery's record as stored and as readers see it. */
import { keys } from '../storage/keys.ts';
import type { Delivery, DeliveryStatus } from './webhook-schemas.ts';

/**
 * A delivery as the service works with it: its view (stored once, as `list_view`, the index
 * entries' projection) and what only the service reads. Its payload is an item of its own,
 * written once beside it and never again: every later write of the delivery (its claim, each
 * attempt's outcome) rewrites a record under 1 KB, one write unit, and not the payload with it.
 */
export interface StoredDelivery extends Omit<Delivery, 'recovered_by'> {
  /** Absent until `recover` re-sends it (a condition tests its absence). */
  recovered_by?: string;
  pk: string;
  sk: string;
  tenant: string;
  /** While an attempt is under way: when its lease ends. Readers show such a delivery as `delivering`. */
  delivering_until?: string;
  /** Epoch seconds: when DynamoDB's TTL deletes the delivery. */
  expires_at?: number;
}

/** Stored statuses (`delivering` is shown, not stored: an attempt's lease on a queued or retrying delivery). */
export type StoredStatus = Exclude<DeliveryStatus, 'delivering'>;

/**
 * The statuses the status index holds: the few a reader looks for among many. `delivered`, most
 * deliveries, is read from the list itself with a filter, so a delivery's success removes its
 * index entry (one write) instead of moving it (two).
 */
export const INDEXED_STATUSES: ReadonlySet<DeliveryStatus> = new Set(['queued', 'retrying', 'dead_lettered']);

/**
 * A dead letter that was re-sent moves to a partition of its own, so a recovery reads only the
 * dead letters it has still to re-send, however many it re-sent before; the list of
 * dead-lettered deliveries reads both partitions.
 */
export const RECOVERED_FACET = 'recovered';

/** The status-index partition a delivery's entry is in, if it has one. */
const statusFacet = (d: Pick<StoredDelivery, 'status' | 'recovered_by'>): string | undefined =>
  d.status === 'dead_lettered' && d.recovered_by ? RECOVERED_FACET : INDEXED_STATUSES.has(d.status) ? d.status : undefined;

/** The status-index entry of a delivery's item, if its status has one. */
function statusEntry(d: Pick<StoredDelivery, 'tenant' | 'delivery_id' | 'created_at' | 'status' | 'recovered_by'>) {
  const facet = statusFacet(d);
  return facet ? keys.facetEntry(d.tenant, 'DELIVERIES', d.delivery_id, `${d.created_at}#${d.delivery_id}`, [facet]) : {};
}

/** The typed reader of delivery items: the view with its nulls, and the service's own fields. */
export function deliveryFromItem(item: Record<string, unknown>): StoredDelivery {
  const { recovered_by, ...view } = deliveryView(item.list_view as Delivery);
  return {
    ...view,
    ...(recovered_by ? { recovered_by } : {}),
    pk: String(item.pk),
    sk: String(item.sk),
    tenant: String(item.tenant),
    ...(item.delivering_until ? { delivering_until: String(item.delivering_until) } : {}),
    ...(item.expires_at !== undefined ? { expires_at: Number(item.expires_at) } : {}),
  };
}

/** The stored statuses an attempt can hold a delivery in: while it does, readers show it `delivering`. */
export const ATTEMPTABLE_STATUSES: readonly StoredStatus[] = ['queued', 'retrying'];
const attemptable = (status: DeliveryStatus) => (ATTEMPTABLE_STATUSES as readonly DeliveryStatus[]).includes(status);

/** Whether an attempt holds the delivery now: an attemptable delivery with a live lease. */
export const attemptUnderWay = (d: { status: DeliveryStatus; delivering_until?: string | undefined }, now: Date): boolean =>
  attemptable(d.status) && d.delivering_until !== undefined && Date.parse(d.delivering_until) > now.getTime();

/** Whether a listed view may be held by an attempt (its lease is on the record, not in the list). */
export const mayBeUnderWay = (d: Pick<Delivery, 'status'>): boolean => attemptable(d.status);

/** A delivery as readers see it: `delivering` while an attempt holds it. */
export const shownDelivery = (d: StoredDelivery, now: Date): Delivery => ({ ...deliveryView(d), ...(attemptUnderWay(d, now) ? { status: 'delivering' } : {}) });

/** The view as stored: its nulls left out (readers put them back), so the record stays under 1 KB. */
const storedView = (d: Omit<Delivery, 'recovered_by'> & { recovered_by?: string | null }) =>
  Object.fromEntries(Object.entries(deliveryView(d)).filter(([, value]) => value !== null));

/** The delivery's item: its view, its list entry, its status-index entry where one is kept, and the due entry given. */
export function deliveryItem(d: StoredDelivery, due: Record<string, unknown> = {}): Record<string, unknown> {
  const newestFirst = `${d.created_at}#${d.delivery_id}`;
  return {
    pk: d.pk,
    sk: d.sk,
    entity: 'delivery',
    tenant: d.tenant,
    list_view: storedView(d),
    ...keys.listEntry(d.tenant, 'DELIVERIES', d.delivery_id, newestFirst),
    ...statusEntry(d),
    ...due,
    ...(d.delivering_until ? { delivering_until: d.delivering_until } : {}),
    ...(d.expires_at !== undefined ? { expires_at: d.expires_at } : {}),
  };
}

export const deliveryView = (d: Omit<Delivery, 'recovered_by'> & { recovered_by?: string | null | undefined }): Delivery => ({
  delivery_id: d.delivery_id,
  event_id: d.event_id,
  event_type: d.event_type,
  status: d.status,
  attempts: d.attempts,
  created_at: d.created_at,
  delivered_at: d.delivered_at ?? null,
  next_attempt_at: d.next_attempt_at ?? null,
  replay_of: d.replay_of ?? null,
  recovered_by: d.recovered_by ?? null,
  last_attempt: d.last_attempt ?? null,
});
