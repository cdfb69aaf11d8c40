/**
 * The stream processor's webhook fan-out: a new public event item becomes one queued
 * delivery (idempotent per event: a re-delivered stream record creates nothing new) when the
 * tenant's subscription is enabled and allows its type. Test events always go out. Live listen
 * sessions (`sandbox listen`) get the same payload in their feeds, subscription or not.
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
import { feedListenSessions, liveListenSessions } from './listen-sessions.ts';

/** How long the fan-out trusts its list of a tenant's listen sessions: a new session sees events from about then on. */
export const LISTEN_SESSIONS_CACHE_MS = 2_000;

/**
 * What becomes of an event: delivered; parked (kept as a dead-lettered delivery with no
 * attempt, for `recover` once the partner enables the subscription again) while the service
 * has disabled a failing endpoint; or nothing.
 */
function decide(s: StoredSubscription | undefined, event: EventRecord): 'deliver' | 'park' | 'skip' {
  if (!s) return 'skip';
  if (event.test === true) return 'deliver';
  if (!s.event_types.includes(event.event_type as never)) return 'skip';
  if (s.enabled) return 'deliver';
  return s.disabled_reason === 'endpoint_failing' ? 'park' : 'skip';
}

export function webhookFanOut(options: { subscriptionCacheSeconds: number; orderReference: OrderReference }): Reaction {
  /**
   * The allowlist and `enabled` change rarely: a cached subscription may say "deliver" (unless
   * its endpoint is failing), but "do not deliver" is always confirmed by a fresh read, so a
   * just-created or re-enabled subscription never misses an event.
   */
  const subscriptions = ttlCache((tenant) => readWebhookSubscription(tenant), options.subscriptionCacheSeconds * 1000);
  const listenSessions = ttlCache((tenant) => liveListenSessions(tenant, new Date()), LISTEN_SESSIONS_CACHE_MS);
  return {
    name: 'webhook-fan-out',
    async handle(change) {
      const image = change.newImage;
      if (change.eventName !== 'INSERT' || image?.entity !== 'event' || !isPublicEvent(String(image.event_type))) return;
      const event = image as unknown as EventRecord;
      const cachedSubscription = await subscriptions.get(event.tenant);
      const cached = decide(cachedSubscription, event);
      // A cached "deliver" is trusted unless the endpoint is failing: the sender may disable it
      // at any moment, and from then on its events are parked, not attempted.
      const decision =
        cached === 'deliver' && (event.test === true || !cachedSubscription?.failing_since)
          ? cached
          : decide(await readWebhookSubscription(event.tenant), event);
      const sessions = await listenSessions.get(event.tenant);
      if (decision === 'skip' && !sessions.length) return;
      const now = new Date();
      const payload = payloadOf(event, options.orderReference);
      if (decision !== 'skip') {
        const source = { ...event, event_occurred_at: event.occurred_at };
        await enqueueDelivery(event.tenant, deliveryIdFor(event.event_id), source, payload, null, now, { parked: decision === 'park' });
        millisecondsMetric(METRIC.fanOutLag, now.getTime() - Date.parse(event.occurred_at));
      }
      await feedListenSessions(event.tenant, sessions, event, payload, now);
    },
  };
}
