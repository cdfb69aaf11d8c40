/**
 * The stream processor's webhook fan-out: a new public event item becomes one queued
 * delivery (idempotent per event: a re-delivered stream record creates nothing new) when the
 * tenant's subscription is enabled and allows its type. Test events always go out.
 */
import { isPublicEvent, type EventRecord } from '../events/outbox.ts';
import type { Reaction } from '../queue/stream-dispatch.ts';
import { deliveryIdFor, enqueueDelivery, payloadOf } from './deliveries.ts';
import { readWebhookSubscription } from './subscription-store.ts';

export const webhookFanOut: Reaction = {
  name: 'webhook-fan-out',
  async handle(change) {
    const image = change.newImage;
    if (change.eventName !== 'INSERT' || image?.entity !== 'event' || !isPublicEvent(String(image.event_type))) return;
    const event = image as unknown as EventRecord;
    const subscription = await readWebhookSubscription(event.tenant);
    if (!subscription) return;
    if (!event.test && (!subscription.enabled || !subscription.event_types.includes(event.event_type as never))) return;
    await enqueueDelivery(event.tenant, deliveryIdFor(event.event_id), event, payloadOf(event), null, new Date());
  },
};
