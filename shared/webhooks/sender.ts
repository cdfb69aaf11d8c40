/**
 * The webhook sender: one attempt per queue message, with SSRF checks at delivery time.
 * Answers what the event source should do with the message.
 */
import { lookup } from 'node:dns/promises';
import { logger } from '../logging/logger.ts';
import { type AttemptOutcome, claimDelivery, recordDeliveryAttempt, type StoredDelivery } from './delivery-store.ts';
import { postPinned } from './http-post.ts';
import { signatureHeaders } from './signature.ts';
import { checkWebhookUrl, resolvePublicAddress, type Resolver } from './ssrf.ts';
import { activeSecrets, readWebhookSubscription } from './subscription-store.ts';

export const CONNECT_TIMEOUT_MS = 5_000;
export const TOTAL_TIMEOUT_MS = 15_000;
const EXCERPT_BYTES = 1024;

export interface SenderSettings {
  /** Local receivers only: private and loopback addresses allowed. */
  allowPrivateUrls: boolean;
  /** Shrink the timeouts and the retry schedule, for tests. */
  timeoutScale: number;
  backoffScale: number;
}

export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/** At most 1 KiB kept, with long digit runs (phone numbers, card-like numbers) masked. */
export const excerpt = (text: string) => text.slice(0, EXCERPT_BYTES).replace(/\d{6,}/g, (d) => `${d.slice(0, 2)}${'*'.repeat(d.length - 2)}`);

async function attempt(delivery: StoredDelivery, settings: SenderSettings, now: Date, resolve: Resolver): Promise<AttemptOutcome> {
  const started = performance.now();
  const failed = (error: string): AttemptOutcome => ({
    at: now,
    statusCode: null,
    error,
    latencyMs: performance.now() - started,
    requestExcerpt: excerpt(delivery.payload),
    responseExcerpt: '',
  });
  const subscription = await readWebhookSubscription(delivery.tenant);
  if (!subscription) return failed('no_subscription');
  const checked = checkWebhookUrl(subscription.url, settings.allowPrivateUrls);
  if (!checked.ok) return failed(`url_refused: ${checked.reason}`);
  const pinned = await resolvePublicAddress(checked.url, resolve, settings.allowPrivateUrls);
  if (!pinned.ok) return failed(`url_refused: ${pinned.reason}`);
  const headers = signatureHeaders(activeSecrets(subscription, now), delivery.event_id, delivery.payload, now);
  const result = await postPinned(checked.url, pinned, headers, delivery.payload, {
    connectMs: CONNECT_TIMEOUT_MS * settings.timeoutScale,
    totalMs: TOTAL_TIMEOUT_MS * settings.timeoutScale,
  });
  return {
    at: now,
    statusCode: result.statusCode,
    error: result.error ?? (result.statusCode !== null && (result.statusCode < 200 || result.statusCode >= 300) ? `http_${result.statusCode}` : null),
    ...(result.cause ? { cause: result.cause } : {}),
    latencyMs: performance.now() - started,
    requestExcerpt: excerpt(delivery.payload),
    responseExcerpt: excerpt(result.responseExcerpt),
  };
}

export type MessageAction = { kind: 'done' } | { kind: 'retry'; inSeconds: number } | { kind: 'dead_letter' };

export async function handleDeliveryMessage(
  body: string,
  settings: SenderSettings,
  now = new Date(),
  resolve: Resolver = systemResolver,
): Promise<MessageAction> {
  const { tenant, delivery_id } = JSON.parse(body) as { tenant: string; delivery_id: string };
  // Longer than one attempt can take (its timeout and the writes around it).
  const leaseSeconds = Math.ceil((2 * TOTAL_TIMEOUT_MS * settings.timeoutScale) / 1000) + 5;
  const claim = await claimDelivery(tenant, delivery_id, now, leaseSeconds);
  if (claim.kind === 'finished') return { kind: 'done' };
  // Another sender holds it, or held it when it stopped: look again when its lease ends.
  if (claim.kind === 'held') return { kind: 'retry', inSeconds: Math.max(1, (claim.untilMs - now.getTime()) / 1000) };
  const claimed = claim.delivery;
  const outcome = await attempt(claimed, settings, now, resolve);
  const { status, retryInSeconds } = await recordDeliveryAttempt(claimed, outcome, settings.backoffScale);
  // Identifiers, status and timing only: never the payload, the URL or a secret.
  logger.info('webhook attempt', {
    tenant,
    delivery_id,
    event_id: claimed.event_id,
    attempt: claimed.attempts + 1,
    status_code: outcome.statusCode,
    error: outcome.error,
    cause: outcome.cause,
    latency_ms: Math.round(outcome.latencyMs),
    status,
  });
  if (status === 'delivered') return { kind: 'done' };
  if (status === 'dead_lettered') return { kind: 'dead_letter' };
  return { kind: 'retry', inSeconds: retryInSeconds };
}
