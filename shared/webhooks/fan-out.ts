/**
 * The stream processor's webhook fan-out: a public event becomes one queued delivery
 * (idempotent per event: a re-delivered stream record creates nothing new) when the tenant's
 * subscription is enabled and allows its type. Test events always go out. Live listen
 * sessions (`sandbox listen`) get the same payload in their feeds, subscription or not.
 *
 * An order publishes its own events (orders/order-publication.ts): a delivery made already is
 * not made again, and a listen feed is live: it gets only the record's own events. Any other
 * event item (a test event, a write-back failure) carries stream work of its own and is
 * published from its own record.
 */
import { ttlCache } from '../caching/ttl-cache.ts';
import { isPublicEvent } from '../events/event-types.ts';
import type { EventRecord } from '../events/outbox.ts';
import { METRIC } from '../observability/metric-names.ts';
import { millisecondsMetric } from '../observability/metrics.ts';
import type { PublicationOf } from '../orders/order-publication.ts';
import { hasStreamDue } from '../storage/keys.ts';
import type { Reaction } from '../stream/stream-dispatch.ts';
import { deliveryExists, enqueueDelivery } from './delivery-store.ts';
import { feedListenSessions, liveListenSessions } from './listen-sessions.ts';
import { deliveryIdFor, type OrderReference, payloadOf } from './payload.ts';
import { readWebhookSubscription, type StoredSubscription } from './subscription-store.ts';

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

export function webhookFanOut(options: { subscriptionCacheSeconds: number; orderReference: OrderReference; publicationOf: PublicationOf }): Reaction {
  /**
   * The allowlist and `enabled` change rarely: a cached subscription may say "deliver" (unless
   * its endpoint is failing), but "do not deliver" is always confirmed by a fresh read, so a
   * just-created or re-enabled subscription never misses an event.
   */
  const subscriptions = ttlCache((tenant) => readWebhookSubscription(tenant), options.subscriptionCacheSeconds * 1000);
  const listenSessions = ttlCache((tenant) => liveListenSessions(tenant, new Date()), LISTEN_SESSIONS_CACHE_MS);
  /** `missed`: an event a skipped record may not have published; its delivery is made only if it does not exist. */
  async function publish(event: EventRecord, missed: boolean) {
    const cachedSubscription = await subscriptions.get(event.tenant);
    const cached = decide(cachedSubscription, event);
    // A cached "deliver" is trusted unless the endpoint is failing: the sender may disable it
    // at any moment, and from then on its events are parked, not attempted.
    const decision =
      cached === 'deliver' && (event.test === true || !cachedSubscription?.failing_since) ? cached : decide(await readWebhookSubscription(event.tenant), event);
    const sessions = missed ? [] : await listenSessions.get(event.tenant);
    if (decision === 'skip' && !sessions.length) return;
    const now = new Date();
    const payload = payloadOf(event, options.orderReference);
    const deliveryId = deliveryIdFor(event.event_id);
    // A missed event's delivery made already needs nothing here: the record that made it sent
    // its message or armed its due entry, and is retried, or replayed by the sweep, until it did.
    if (decision !== 'skip' && !(missed && (await deliveryExists(event.tenant, deliveryId)))) {
      const source = { ...event, event_occurred_at: event.occurred_at };
      await enqueueDelivery(event.tenant, deliveryId, source, payload, null, now, { parked: decision === 'park', fromStream: true });
      millisecondsMetric(METRIC.fanOutLag, now.getTime() - Date.parse(event.occurred_at));
    }
    if (sessions.length) await feedListenSessions(event.tenant, sessions, event, payload, now);
  }
  return {
    name: 'webhook-fan-out',
    async handle(change) {
      const image = change.newImage;
      if (change.eventName === 'REMOVE' || !image) return;
      if (image.entity === 'order') {
        const { fresh, earlier } = await options.publicationOf(change);
        for (const event of earlier) await publish(event, true);
        for (const event of fresh) await publish(event, false);
        return;
      }
      if (change.eventName !== 'INSERT' || image.entity !== 'event' || !hasStreamDue(image) || !isPublicEvent(String(image.event_type))) return;
      await publish(image as unknown as EventRecord, false);
    },
  };
}
