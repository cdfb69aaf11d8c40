/**
 * What each webhook carries (spec section 6, contract-decisions section 8): the envelope and
 * its `data` per event type. The producers' `eventItem` is typed by these schemas and the
 * contract's `webhooks` section is generated from them, so the two cannot drift.
 */
import * as z from 'zod/mini';
import { UtcTime } from '../api/fields.ts';
import { ORDER_STATE } from '../api/order-states.ts';
import { integer, meta, type Schema } from '../api/zod.ts';
import { CallAttemptSchema, ResultSchema } from '../calls/call-schemas.ts';
import { EVENT_TYPES, EVENT_VERSION, type PublicEventType } from './event-types.ts';

/** Delivered instead of `data` when an envelope would pass 256 KiB: read the order at `reference`. */
export const TruncatedDataSchema = meta(
  z.object({
    truncated: z.literal(true),
    reason: z.literal('payload_too_large'),
    reference: meta(z.nullable(z.string()), { description: 'The API path of the order to read instead' }),
  }),
  { id: 'TruncatedEventData' },
);

export const EVENT_DATA_SCHEMAS = {
  'commerce.order.status_changed.v1': meta(
    z.object({
      previous_state: meta(z.nullable(ORDER_STATE), { description: 'null for the first state (received)' }),
      processing_state: ORDER_STATE,
      reason: z.nullable(z.string()),
    }),
    { id: 'OrderStatusChangedData' },
  ),
  'commerce.call.attempt_completed.v1': CallAttemptSchema,
  'commerce.order.result_ready.v1': meta(z.object({ result: ResultSchema }), { id: 'OrderResultReadyData' }),
  'commerce.writeback.failed.v1': meta(
    z.object({
      reason: meta(z.string(), { description: "The store's last answer, sanitized" }),
      attempts: meta(integer(), { description: 'Write-back attempts made' }),
    }),
    { id: 'WritebackFailedData' },
  ),
} as const satisfies Record<PublicEventType, Schema>;

export type EventData<T extends PublicEventType> = z.input<(typeof EVENT_DATA_SCHEMAS)[T]>;

const SCHEMA_NAMES: Record<PublicEventType, string> = {
  'commerce.order.status_changed.v1': 'OrderStatusChangedEvent',
  'commerce.call.attempt_completed.v1': 'CallAttemptCompletedEvent',
  'commerce.order.result_ready.v1': 'OrderResultReadyEvent',
  'commerce.writeback.failed.v1': 'WritebackFailedEvent',
};

export const EVENT_DESCRIPTIONS: Record<PublicEventType, string> = {
  'commerce.order.status_changed.v1': "The order's processing_state changed; every change has its event, in revision order per order.",
  'commerce.call.attempt_completed.v1': 'A call attempt ended, with its call_disposition.',
  'commerce.order.result_ready.v1': 'The final_order_snapshot is ready: the same result as GET /orders/{externalOrderId}/result.',
  'commerce.writeback.failed.v1': 'Writing the confirmed result back to the store failed after every attempt (write-back is partner dependent).',
};

const envelopeOf = <T extends PublicEventType>(type: T) =>
  meta(
    z.object({
      event_id: meta(z.string(), { description: 'Unique id and deduplication key; a replay keeps it' }),
      event_type: z.literal(type),
      event_version: z.literal(EVENT_VERSION),
      occurred_at: UtcTime,
      integration_ref: meta(z.string(), { description: 'The receiving integration (tenant)' }),
      external_order_id: z.nullable(z.string()),
      correlation_id: meta(z.string(), {
        description:
          "The correlation id of the request behind this change: an order's events share it until an accepted PATCH or upsert of the order starts a new one (the order's own `correlation_id` is the latest)",
      }),
      causation_id: meta(z.nullable(z.string()), { description: 'The event or request that caused this one' }),
      test: meta(z.optional(z.literal(true)), { description: 'Present on test deliveries (POST /webhook-subscription/test)' }),
      data: z.union([EVENT_DATA_SCHEMAS[type], TruncatedDataSchema]),
    }),
    { id: SCHEMA_NAMES[type], description: EVENT_DESCRIPTIONS[type] },
  );

export const EVENT_SCHEMAS = Object.fromEntries(EVENT_TYPES.map((type) => [type, envelopeOf(type)])) as {
  [T in PublicEventType]: ReturnType<typeof envelopeOf<T>>;
};

/** Any delivered event: what a receiver parses, discriminated by `event_type`. */
export const WebhookEventSchema = meta(
  z.discriminatedUnion('event_type', [
    EVENT_SCHEMAS['commerce.order.status_changed.v1'],
    EVENT_SCHEMAS['commerce.call.attempt_completed.v1'],
    EVENT_SCHEMAS['commerce.order.result_ready.v1'],
    EVENT_SCHEMAS['commerce.writeback.failed.v1'],
  ]),
  { id: 'WebhookEvent' },
);
