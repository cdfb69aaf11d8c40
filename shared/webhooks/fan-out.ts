/**
 * The stream processor's webhook fan-out: a public event becomes one queued delivery
 * (idempotent per event: a re-delivered stream record creates nothing new) when the tenant's
 * subscription is enabled and allows its type. Test events always go out. Live listen
 * sessions (`sandbox listen`) get the same payload in their feeds, subscription or not.
 *
 * An order publishes its own events: each of its stream records the events its write produced
 * and, when the order carries its publication marker (order-store.ts), every event it has,
 * those a skipped record missed included (a delivery made already is not made again, and a
 * listen feed is live: it gets only the record's own events). Any other event item (a test
 * event, a write-back failure) carries stream work of its own and is published from its own record.
 */
import { ttlCache } from '../caching/ttl-cache.ts';
import { isPublicEvent } from '../events/event-types.ts';
import type { EventRecord } from '../events/outbox.ts';
import { METRIC } from '../observability/metric-names.ts';
import { millisecondsMetric } from '../observability/metrics.ts';
import { entryRevision, eventsOf, mergedLog, needsRecords, type OrderRecords, type PublicationSpan } from '../orders/order-log.ts';
import { hasStreamDue } from '../storage/keys.ts';
import type { Reaction, StreamChange } from '../stream/stream-dispatch.ts';
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

/** What a publication reads of an order besides its stream record (order-records.ts). */
export interface OrderReads {
  /** Its attempts and result and, given a span, the stretches of its log moved out of it that the span needs. */
  records(orderPk: string, options: { history: PublicationSpan | null }): Promise<OrderRecords & { history: string[] }>;
  /** The revision its events are published through, as the order says now (a writer's image may carry an older one). */
  publishedThrough(orderPk: string): Promise<number>;
}

const NO_RECORDS: OrderRecords & { history: string[] } = { attempts: new Map(), result: undefined, history: [] };

/**
 * What an order's stream record publishes: the events its write produced (the log's entries
 * after the old image's revision) and, with the publication marker, those since the last
 * publication that completed (`published`, read from the order as it is now), which a skipped
 * record may have missed. The order's attempts and result are read only when an entry names
 * them, the stretches of its log moved out of it only when those reach back that far.
 */
export async function orderPublication(change: StreamChange, reads: OrderReads): Promise<{ fresh: EventRecord[]; earlier: EventRecord[] }> {
  const image = change.newImage!;
  const before = change.oldImage?.entity === 'order' ? Number(change.oldImage.revision) : 0;
  const log = (image.log as string[] | undefined) ?? [];
  const marked = hasStreamDue(image);
  const published = marked ? Math.max(Number(image.published ?? 0), await reads.publishedThrough(String(image.pk))) : 0;
  // A replay (the reconciler's, no old image) publishes what its marker covers, as the record it stands for would have.
  const after = !marked ? before : change.oldImage ? Math.min(before, published) : published;
  if (!log.some((entry) => entryRevision(entry) > after)) return { fresh: [], earlier: [] };
  // The order's own log starts with a state change: from there on it needs nothing moved out.
  const history = log.length === 0 || after < entryRevision(log[0]!);
  // A record publishes what its own write reached: the stretches moved out since (a record
  // handled after later changes of its order reads them now) are later records' to publish.
  const through = Number(image.revision);
  const loaded = history || needsRecords(log, after) ? await reads.records(String(image.pk), { history: history ? { after, through } : null }) : NO_RECORDS;
  const identity = {
    pk: String(image.pk),
    tenant: String(image.tenant),
    external_order_id: String(image.external_order_id),
    correlation_id: String(image.correlation_id),
  };
  const entries = history ? mergedLog(loaded.history, log).filter((entry) => entryRevision(entry) <= through) : log;
  const events = eventsOf(identity, entries, loaded, after);
  const isFresh = (e: { revision: number }) => e.revision > before;
  return { fresh: events.filter(isFresh), earlier: events.filter((e) => !isFresh(e)) };
}

/**
 * The publication of each order record, made once per record however many reactions ask
 * (the fan-out and the business metrics): one read of the order's records at most.
 */
export function publicationOfRecords(reads: OrderReads) {
  const made = new WeakMap<StreamChange, ReturnType<typeof orderPublication>>();
  return (change: StreamChange) => {
    if (!made.has(change)) made.set(change, orderPublication(change, reads));
    return made.get(change)!;
  };
}
export type PublicationOf = ReturnType<typeof publicationOfRecords>;

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
