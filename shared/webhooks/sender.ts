/**
 * The webhook sender: one attempt per queue message, with SSRF checks at delivery time.
 * Answers what the event source should do with the message.
 */
import { lookup } from 'node:dns/promises';
import { logger } from '../logging/logger.ts';
import { METRIC } from '../observability/metric-names.ts';
import { countMetric, millisecondsMetric } from '../observability/metrics.ts';
import { checkWebhookUrl, type Resolver, resolvePublicAddress } from '../outbound/address-checks.ts';
import { postPinned } from '../outbound/http-post.ts';
import { signatureHeaders } from '../outbound/signature.ts';
import { type DeliveryMessage, identifiersOf, MAX_DELAY_SECONDS, parseDeliveryMessage, type WebhookQueue } from '../queue/webhook-queue.ts';
import type { StoredDelivery } from './delivery-item.ts';
import { type AttemptOutcome, claimDelivery, type DeliveryContent, deferDelivery, readDeliveryContent, recordDeliveryAttempt } from './delivery-store.ts';
import { claimSlot, countsAsFast, endpointBusy, endpointSlow, releaseSlot, SLOW_ATTEMPT_MS, type SlotClaim, settleSlot } from './endpoint-guard.ts';
import { requestExcerpt, responseExcerpt } from './excerpt.ts';
import { activeSecrets, noteEndpointAttempt, readWebhookSubscription, type StoredSubscription } from './subscription-store.ts';

export const CONNECT_TIMEOUT_MS = 5_000;
export const TOTAL_TIMEOUT_MS = 15_000;

/** The event's correlation id on every delivery, so a receiver's logs join ours. */
export const CORRELATION_HEADER = 'X-SVC-Correlation-Id';

export interface SenderSettings {
  /** Local receivers only: private and loopback addresses allowed. */
  allowPrivateUrls: boolean;
  /** Shrink the timeouts and the retry schedule, for tests. */
  timeoutScale: number;
  backoffScale: number;
  /** How long every attempt must have failed before the subscription is disabled. */
  disableAfterSeconds: number;
}

export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

async function attempt(
  delivery: StoredDelivery & DeliveryContent,
  subscription: StoredSubscription | undefined,
  settings: SenderSettings,
  now: Date,
  resolve: Resolver,
): Promise<AttemptOutcome & { subscription?: StoredSubscription }> {
  const started = performance.now();
  const failed = (error: string): AttemptOutcome => ({
    at: now,
    statusCode: null,
    error,
    latencyMs: performance.now() - started,
    requestExcerpt: requestExcerpt(delivery.payload),
    responseExcerpt: '',
  });
  if (!subscription) return failed('no_subscription');
  const checked = checkWebhookUrl(subscription.url, settings.allowPrivateUrls);
  if (!checked.ok) return failed(`url_refused: ${checked.reason}`);
  const pinned = await resolvePublicAddress(checked.url, resolve, settings.allowPrivateUrls);
  if (!pinned.ok) return failed(`url_refused: ${pinned.reason}`);
  const headers = {
    ...signatureHeaders(activeSecrets(subscription, now), delivery.event_id, delivery.payload, now),
    ...(delivery.correlation_id ? { [CORRELATION_HEADER]: delivery.correlation_id } : {}),
  };
  const result = await postPinned(checked.url, pinned, headers, delivery.payload, {
    connectMs: CONNECT_TIMEOUT_MS * settings.timeoutScale,
    totalMs: TOTAL_TIMEOUT_MS * settings.timeoutScale,
  });
  return {
    subscription,
    at: now,
    statusCode: result.statusCode,
    error: result.error ?? (result.statusCode !== null && (result.statusCode < 200 || result.statusCode >= 300) ? `http_${result.statusCode}` : null),
    ...(result.cause ? { cause: result.cause } : {}),
    latencyMs: performance.now() - started,
    requestExcerpt: requestExcerpt(delivery.payload),
    responseExcerpt: responseExcerpt(result.responseExcerpt),
  };
}

/**
 * One invocation's claims of endpoint slots: one at a time per endpoint, and none once the
 * endpoint was found busy. A batch's messages run at once, and those of one endpoint would all
 * read one free slot and race for it: every claim but one refused, and a refused claim is a
 * billed write. Per invocation, as Lambda runs a batch: never shared between invocations.
 */
export function batchSlots() {
  const turns = new Map<string, Promise<unknown>>();
  const busy = new Set<string>();
  return {
    claim(tenant: string, claim: () => Promise<SlotClaim>): Promise<SlotClaim> {
      const mine = (turns.get(tenant) ?? Promise.resolve()).then(async (): Promise<SlotClaim> => {
        if (busy.has(tenant)) return endpointBusy();
        const claimed = await claim();
        if (claimed.kind === 'wait' && claimed.reason === 'busy') busy.add(tenant);
        return claimed;
      });
      turns.set(
        tenant,
        mine.catch(() => undefined),
      );
      return mine;
    },
  };
}
export type BatchSlots = ReturnType<typeof batchSlots>;

/**
 * A slot of the endpoint, or why to wait: one look, no waiting inside the sender. A message
 * that slept here for a slot held a sender invocation (and, on Lambda, the whole batch with it)
 * that every tenant shares; put back with a delay, it holds nothing.
 */
async function endpointSlot(
  tenant: string,
  subscription: StoredSubscription,
  now: Date,
  leaseSeconds: number,
  batch?: BatchSlots,
): Promise<SlotClaim | undefined> {
  try {
    return await (batch ? batch.claim(tenant, () => claimSlot(tenant, subscription, now, leaseSeconds)) : claimSlot(tenant, subscription, now, leaseSeconds));
  } catch (error) {
    // The guard serves fairness, not correctness: when its table cannot be reached, the
    // attempt goes ahead without a slot rather than the message waiting out its visibility.
    logger.warn('webhook endpoint slot not claimed', { tenant, error: (error as Error).name });
    return undefined;
  }
}

export type MessageAction =
  | { kind: 'done' }
  | { kind: 'retry'; inSeconds: number }
  /** `busyWaits`: the message comes back counting one more wait for a busy endpoint. */
  | { kind: 'held'; inSeconds: number; busyWaits?: number }
  | { kind: 'dead_letter' };

/**
 * Each wait for a busy endpoint twice as long as the one before (1 s, 2 s, …), jittered, at
 * most one attempt's timeout: by then every slot has been given back or its attempt has failed.
 */
const busyWait = (waits: number, settings: SenderSettings) => Math.min((TOTAL_TIMEOUT_MS * settings.timeoutScale) / 1000, 2 ** waits) * (1 + Math.random() / 2);

export async function handleDeliveryMessage(
  message: DeliveryMessage,
  settings: SenderSettings,
  now = new Date(),
  resolve: Resolver = systemResolver,
  batch?: BatchSlots,
): Promise<MessageAction> {
  const { tenant, delivery_id, from_dead_letter_queue, busy_waits = 0 } = message;
  // Longer than one attempt can take (its timeout and the writes around it).
  const leaseSeconds = Math.ceil((2 * TOTAL_TIMEOUT_MS * settings.timeoutScale) / 1000) + 5;
  // The endpoint first: while its breaker is open or its slots are taken, the delivery waits
  // without being claimed and without spending an attempt.
  const subscription = await readWebhookSubscription(tenant);
  const slot = subscription ? await endpointSlot(tenant, subscription, now, leaseSeconds, batch) : undefined;
  if (slot?.kind === 'wait' && slot.reason === 'paused') {
    const inSeconds = Math.max(1, slot.seconds);
    await deferDelivery(tenant, delivery_id, new Date(now.getTime() + inSeconds * 1000));
    return { kind: 'held', inSeconds };
  }
  // A busy endpoint's message waits its turn, however often: the cap is what keeps a hanging
  // endpoint from holding the sender every tenant shares (one that went ahead after a few
  // waits let a hanging endpoint hold twice its cap of invocations, for a timeout each).
  if (slot?.kind === 'wait') return { kind: 'held', inSeconds: busyWait(busy_waits, settings), busyWaits: busy_waits + 1 };
  const claim = await claimDelivery(tenant, delivery_id, now, leaseSeconds, from_dead_letter_queue === true);
  if (claim.kind !== 'claimed' && (slot?.kind === 'slot' || slot?.kind === 'unguarded')) await releaseSlot(tenant, slot).catch(() => false);
  if (claim.kind === 'finished') return { kind: 'done' };
  // Its attempts are used up and its move to the DLQ did not happen: move it, attempt nothing.
  if (claim.kind === 'dead_lettered') return { kind: 'dead_letter' };
  // Another sender holds it, or its backoff has not passed: look again then.
  if (claim.kind === 'held') return { kind: 'held', inSeconds: Math.max(1, (claim.untilMs - now.getTime()) / 1000) };
  // Written before the delivery itself: a delivery that exists has its payload (until both expire).
  const content = await readDeliveryContent(claim.delivery.pk);
  if (!content) throw new Error('delivery payload missing');
  const claimed = { ...claim.delivery, ...content };
  const outcome = await attemptAndSettle(claimed, subscription, slot, settings, now, resolve);
  const { status, retryInSeconds } = await recordDeliveryAttempt(claimed, outcome, claim.lease, settings.backoffScale);
  // Identifiers, status and timing only: never the payload, the URL or a secret.
  logger.info('webhook attempt', {
    tenant,
    delivery_id,
    correlation_id: claimed.correlation_id,
    event_id: claimed.event_id,
    attempt: claimed.attempts + 1,
    status_code: outcome.statusCode,
    error: outcome.error,
    cause: outcome.cause,
    latency_ms: Math.round(outcome.latencyMs),
    status,
    ...(status === 'retrying' ? { retry_in_s: Math.round(retryInSeconds) } : {}),
  });
  countAttempt(status, claimed, now);
  // The settlement ended `failing_since` on a success and started it on a failure: what follows reads it so.
  if (status !== 'superseded' && outcome.subscription) {
    const delivered = status === 'delivered';
    const failingSince = delivered ? undefined : (outcome.subscription.failing_since ?? now.toISOString());
    await followEndpoint(tenant, { ...outcome.subscription, failing_since: failingSince }, delivered, now, settings);
  }
  if (status === 'delivered' || status === 'superseded') return { kind: 'done' };
  if (status === 'dead_lettered') return { kind: 'dead_letter' };
  return { kind: 'retry', inSeconds: retryInSeconds };
}

/** The attempt, watched for slowness while its endpoint counts as fast, and its endpoint slot settled. */
async function attemptAndSettle(
  delivery: StoredDelivery & DeliveryContent,
  subscription: StoredSubscription | undefined,
  slot: SlotClaim | undefined,
  settings: SenderSettings,
  now: Date,
  resolve: Resolver,
): Promise<AttemptOutcome & { subscription?: StoredSubscription }> {
  const { tenant, delivery_id } = delivery;
  const slowAfterMs = SLOW_ATTEMPT_MS * settings.timeoutScale;
  // An endpoint counted as fast that keeps this attempt waiting is slow: its attempts take slots again.
  const slowWatch =
    subscription && countsAsFast(subscription, now)
      ? setTimeout(() => void endpointSlow(tenant, subscription, new Date()).catch(() => undefined), slowAfterMs)
      : undefined;
  const outcome = await attempt(delivery, subscription, settings, now, resolve).finally(() => clearTimeout(slowWatch));
  // The endpoint's slot back as soon as its attempt is over, before the delivery's own record:
  // a slot held through the record's writes too is a slot other deliveries wait and race for.
  // Should the settlement fail, the slot's lease ends by itself and the breaker counts the next attempt.
  if (subscription && slot) {
    const summary = { delivered: outcome.error === null, latencyMs: outcome.latencyMs, slowAfterMs };
    const held = slot.kind === 'slot' || slot.kind === 'unguarded' ? slot : undefined;
    await settleSlot(tenant, subscription, held, summary, now, settings.backoffScale).catch((error: Error) =>
      logger.warn('webhook endpoint slot not settled', { tenant, delivery_id, error: error.name }),
    );
  }
  return outcome;
}

async function followEndpoint(tenant: string, subscription: StoredSubscription, delivered: boolean, now: Date, settings: SenderSettings): Promise<void> {
  const change = await noteEndpointAttempt(tenant, subscription, delivered, now, settings.disableAfterSeconds);
  if (change !== 'disabled') return;
  logger.warn('webhook subscription disabled: every attempt failed', { tenant, failing_since: subscription.failing_since });
  countMetric(METRIC.endpointsDisabled);
}

function countAttempt(status: string, delivery: { attempts: number; event_occurred_at?: string; created_at: string }, now: Date): void {
  if (status === 'superseded') return;
  countMetric(METRIC.deliveryAttempts, { outcome: status });
  if (status === 'dead_lettered') countMetric(METRIC.deadLettered);
  if (status !== 'delivered') return;
  countMetric(METRIC.attemptsPerDelivery, {}, delivery.attempts + 1);
  millisecondsMetric(METRIC.deliveryLatency, now.getTime() - Date.parse(delivery.event_occurred_at ?? delivery.created_at));
}

/**
 * What the sender does with the queue: the DLQ move, the visibility change of a retry, and a
 * message sent again as a new, delayed message (at most SQS's 900 s), whose receives start from zero.
 */
export type SenderQueue = WebhookQueue;

/** A message that stays in the queue to come back later: a batch item failure, not an error. */
export class RetryLater extends Error {
  override readonly name = 'RetryLater';
}

/**
 * One message of the queue: one attempt, then the message's fate. A retry keeps it (its
 * visibility set to the backoff) by throwing RetryLater; a message that made no attempt
 * (another sender holds the delivery, or its backoff has not passed) is sent again as a new,
 * delayed message, so receives that attempt nothing never count toward the queue's
 * maxReceiveCount and only real dead letters reach the DLQ; the 8th failure moves it to the DLQ,
 * marked so that a redrive brings it back for one more attempt. Any other error is logged
 * with the delivery id, the tenant and its class, and the message comes back as SQS decides.
 */
export async function processDeliveryRecord(
  record: { body: string; receiptHandle: string },
  settings: SenderSettings,
  queue: SenderQueue,
  resolve: Resolver = systemResolver,
  batch?: BatchSlots,
): Promise<void> {
  // Parsed once, here at the edge: a body that is not a delivery message fails like any other error.
  const message = parseDeliveryMessage(record.body);
  let action: MessageAction;
  try {
    if (!message) throw new TypeError('the queue message is not a delivery message');
    action = await handleDeliveryMessage(message, settings, new Date(), resolve, batch);
    if (action.kind === 'dead_letter') await queue.sendToDeadLetterQueue({ ...message, from_dead_letter_queue: true });
    // Rounded up: a message back before its time is a receive without an attempt, and receives are counted (maxReceiveCount).
    if (action.kind === 'retry') await queue.retryIn(record.receiptHandle, Math.min(43_200, Math.ceil(action.inSeconds)));
    if (action.kind === 'held') {
      const again = action.busyWaits ? { ...message, busy_waits: action.busyWaits } : message;
      await queue.send(again, Math.min(MAX_DELAY_SECONDS, Math.ceil(action.inSeconds)));
    }
  } catch (error) {
    const { tenant, delivery_id } = message ?? identifiersOf(record.body);
    logger.error('webhook delivery message failed; it comes back', { tenant, delivery_id, error: (error as Error).name, reason: (error as Error).message });
    countMetric(METRIC.senderFailures);
    throw error;
  }
  if (action.kind === 'retry') throw new RetryLater(`delivery retried in ${Math.round(action.inSeconds)} s`);
}
