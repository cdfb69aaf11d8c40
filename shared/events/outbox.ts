/**
 * Events and their envelope. An order's events live in the order's own log (its outbox,
 * orders/order-log.ts) and take this shape when published; other events (a test event, a
 * write-back's failure) are items of their own, each written once by its cause. The table's
 * stream carries both to the webhook fan-out.
 */
import { createHash } from 'node:crypto';
import { expiresAfter } from '../storage/ttl.ts';
import type { EventData } from './event-schemas.ts';
import { EVENT_VERSION, type PublicEventType } from './event-types.ts';

/** Event items are kept 35 days (longer than the 24 h of webhook retries and any replay need), unless they are their owner's history. */
export const EVENT_RETENTION_SECONDS = 35 * 24 * 3600;

export interface EventRecord {
  entity: 'event';
  event_id: string;
  event_type: PublicEventType;
  tenant: string;
  occurred_at: string;
  external_order_id: string | null;
  correlation_id: string;
  causation_id: string | null;
  data: Record<string, unknown>;
  test?: boolean;
  /** Absent on events that are their owner's record (an order's events, published from its log). */
  expires_at?: number;
}

/** Event ids derive from the event item's key, so writing the same event twice is one event. */
export const eventIdFor = (pk: string, sk: string) => `evt_${createHash('sha256').update(`${pk}\n${sk}`).digest('base64url').slice(0, 26)}`;

/** An event item; its `data` is typed by the event's schema (`event-schemas.ts`), which the contract's webhooks are generated from. */
export function eventItem<T extends PublicEventType>(
  key: { pk: string; sk: string },
  e: Omit<EventRecord, 'entity' | 'event_id' | 'expires_at' | 'occurred_at' | 'event_type' | 'data'> & {
    event_type: T;
    data: EventData<T>;
    occurredAt: Date;
    retainedWithOwner?: boolean;
  },
): EventRecord & { pk: string; sk: string } {
  const { occurredAt, retainedWithOwner, ...rest } = e;
  return {
    ...key,
    entity: 'event',
    event_id: eventIdFor(key.pk, key.sk),
    ...rest,
    occurred_at: occurredAt.toISOString(),
    ...(retainedWithOwner ? {} : { expires_at: expiresAfter(occurredAt, EVENT_RETENTION_SECONDS) }),
  };
}

/** The envelope of spec section 6, as delivered. */
export function envelopeOf(e: EventRecord) {
  return {
    event_id: e.event_id,
    event_type: e.event_type,
    event_version: EVENT_VERSION,
    occurred_at: e.occurred_at,
    integration_ref: e.tenant,
    external_order_id: e.external_order_id,
    correlation_id: e.correlation_id,
    causation_id: e.causation_id,
    ...(e.test ? { test: true } : {}),
    data: e.data,
  };
}
