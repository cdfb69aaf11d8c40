/** What a delivery carries: its id (derived from the event, so a fan-out twice is one delivery) and its bytes. */
import { createHash } from 'node:crypto';
import { type EventRecord, envelopeOf } from '../events/outbox.ts';

/** DynamoDB items hold at most 400 KB: larger envelopes are delivered as a reference to the order. */
export const INLINE_PAYLOAD_MAX_BYTES = 256 * 1024;

export const deliveryIdFor = (eventId: string, replayNonce = '') =>
  `dlv_${createHash('sha256').update(`${eventId}\n${replayNonce}`).digest('base64url').slice(0, 24)}`;

/** The API path of an order, for the reference a too-large envelope carries (the route table knows it). */
export type OrderReference = (externalOrderId: string) => string;

/** The bytes delivered for an event: its envelope, or a reference when too large to keep. */
export function payloadOf(event: EventRecord, orderReference: OrderReference): string {
  const full = JSON.stringify(envelopeOf(event));
  if (Buffer.byteLength(full) <= INLINE_PAYLOAD_MAX_BYTES) return full;
  return JSON.stringify({
    ...envelopeOf({ ...event, data: {} }),
    data: { truncated: true, reason: 'payload_too_large', reference: event.external_order_id ? orderReference(event.external_order_id) : null },
  });
}
