/**
 * The stream processor's webhook fan-out: a new public event item becomes one queued
 * delivery (idempotent per event: a re-delivered stream record creates nothing new) when the
 * tenant's subscription is enabled and allows its type. Test events always go out.
 */
import { ttlCache } from '../caching/ttl-cache.ts';
import { isPublicEvent } from '../events/event-types.ts';
import type { EventRecord } from '../events/outbox.ts';
import type { Reaction } from '../stream/stream-dispatch.ts';
import { enqueueDelivery } from './delivery-store.ts';
import { METRIC } from '../observability/metric-names.ts';
import { millisecondsMetric } from '../observability/metrics.ts';
import { deliveryIdFor, type OrderReference, payloadOf } from './payload.ts';
import { readWebhookSubscription, type StoredSubscription } from './subscription-store.ts';

const wants = (s: StoredSubscription | undefined, event: EventRecord) =>
  s !== undefined && (event.test === true || (s.enabled && s.event_types.includes(event.event_type as never)));

export function webhookFanOut(options: { subscriptionCacheSeconds: number; orderReference: OrderReference }): Reaction {
  /**
   * The allowlist and `enabled` change rarely: a cached subscription may say "deliver", but
   * "do not deliver" is always confirmed by a fresh read, so a just-created or re-enabled
   * subscription never misses an event.
   */
  const subscriptions = ttlCache((tenant) => readWebhookSubscription(tenant), options.subscriptionCacheSeconds * 1000);
  return {
    name: 'webhook-fan-out',
    async handle(change) {
      const image = change.newImage;
      if (change.eventName !== 'INSERT' || image?.entity !== 'event' || !isPublicEvent(String(image.event_type))) return;
      const event = image as unknown as EventRecord;
      if (!wants(await subscriptions.get(event.tenant), event) && !wants(await readWebhookSubscription(event.tenant), event)) return;
      const now = new Date();
      await enqueueDelivery(event.tenant, deliveryIdFor(event.event_id), event, payloadOf(event, options.orderReference), null, now);
      millisecondsMetric(METRIC.fanOutLag, now.getTime() - Date.parse(event.occurred_at));
    },
  };
}
