/**
 * What each webhook carries (spec section 6, contract-decisions section 8): the envelope and
 * its `data` per event type. The producers' `eventItem` is typed by these schemas and the
 * contract's `webhooks` section is generated from them, so the two cannot drift.
 */
import * as z from 'zod';
import { UtcTime } from '../api/fields.ts';
import { CallAttemptSchema, ORDER_STATE, ResultSchema } from '../orders/order-schemas.ts';
import { EVENT_TYPES, type PublicEventType } from './event-types.ts';
import { EVENT_VERSION } from './outbox.ts';

/** Delivered instead of `data` when an envelope would pass 256 KiB: read the order at `reference`. */
export const TruncatedDataSchema = z
  .object({
    truncated: z.literal(true),
    reason: z.literal('payload_too_large'),
    reference: z.string().nullable().meta({ description: 'The API path of the order to read instead' }),
  })
  .meta({ id: 'TruncatedEventData' });

export const EVENT_DATA_SCHEMAS = {
  'commerce.order.status_changed.v1': z
    .object({
      previous_state: ORDER_STATE.nullable().meta({ description: 'null for the first state (received)' }),
      processing_state: ORDER_STATE,
      reason: z.string().nullable(),
    })
    .meta({ id: 'OrderStatusChangedData' }),
  'commerce.call.attempt_completed.v1': CallAttemptSchema,
  'commerce.order.result_ready.v1': z.object({ result: ResultSchema }).meta({ id: 'OrderResultReadyData' }),
  'commerce.writeback.failed.v1': z
    .object({
      reason: z.string().meta({ description: "The store's last answer, sanitized" }),
      attempts: z.number().int().meta({ description: 'Write-back attempts made' }),
    })
    .meta({ id: 'WritebackFailedData' }),
} as const satisfies Record<PublicEventType, z.ZodType>;

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
  z
    .object({
      event_id: z.string().meta({ description: 'Unique id and deduplication key; a replay keeps it' }),
      event_type: z.literal(type),
      event_version: z.literal(EVENT_VERSION),
      occurred_at: UtcTime,
      integration_ref: z.string().meta({ description: 'The receiving integration (tenant)' }),
      external_order_id: z.string().nullable(),
      correlation_id: z.string().meta({ description: 'The same for every event of one order' }),
      causation_id: z.string().nullable().meta({ description: 'The event or request that caused this one' }),
      test: z.literal(true).optional().meta({ description: 'Present on test deliveries (POST /webhook-subscription/test)' }),
      data: z.union([EVENT_DATA_SCHEMAS[type], TruncatedDataSchema]),
    })
    .meta({ id: SCHEMA_NAMES[type], description: EVENT_DESCRIPTIONS[type] });

export const EVENT_SCHEMAS = Object.fromEntries(EVENT_TYPES.map((type) => [type, envelopeOf(type)])) as {
  [T in PublicEventType]: ReturnType<typeof envelopeOf<T>>;
};

/** Any delivered event: what a receiver parses, discriminated by `event_type`. */
export const WebhookEventSchema = z
  .discriminatedUnion('event_type', [
    EVENT_SCHEMAS['commerce.order.status_changed.v1'],
    EVENT_SCHEMAS['commerce.call.attempt_completed.v1'],
    EVENT_SCHEMAS['commerce.order.result_ready.v1'],
    EVENT_SCHEMAS['commerce.writeback.failed.v1'],
  ])
  .meta({ id: 'WebhookEvent' });
