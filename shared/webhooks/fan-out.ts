/**
 * The stream processor's webhook fan-out: a new public event item becomes one queued
 * delivery (idempotent per event: a re-delivered stream record creates nothing new) when the
 * tenant's subscription is enabled and allows its type. Test events always go out.
 */
import { isPublicEvent, type EventRecord } from '../events/outbox.ts';
import type { Reaction } from '../stream/stream-dispatch.ts';
import { deliveryIdFor, enqueueDelivery, payloadOf } from './deliveries.ts';
import { readWebhookSubscription, type StoredSubscription } from './subscription-store.ts';
import { runtimeConfig } from '../config/runtime.ts';
import { ttlCache } from '../caching/ttl-cache.ts';

/**
 * The allowlist and `enabled` change rarely: a cached subscription may say "deliver", but
 * "do not deliver" is always confirmed by a fresh read, so a just-created or re-enabled
 * subscription never misses an event.
 */
const subscriptions = ttlCache(
  (tenant) => readWebhookSubscription(tenant),
  () => runtimeConfig().authCacheSeconds * 1000,
);

const wants = (s: StoredSubscription | undefined, event: EventRecord) =>
  s !== undefined && (event.test === true || (s.enabled && s.event_types.includes(event.event_type as never)));

export const webhookFanOut: Reaction = {
  name: 'webhook-fan-out',
  async handle(change) {
    const image = change.newImage;
    if (change.eventName !== 'INSERT' || image?.entity !== 'event' || !isPublicEvent(String(image.event_type))) return;
    const event = image as unknown as EventRecord;
    if (!wants(await subscriptions.get(event.tenant), event) && !wants(await readWebhookSubscription(event.tenant), event)) return;
    await enqueueDelivery(event.tenant, deliveryIdFor(event.event_id), event, payloadOf(event), null, new Date());
  },
};
