/**
 * Webhook signatures: hex HMAC-SHA256 over `timestamp + "." + event_id + "." + raw body`.
 * `constructEvent` is the receiver's side: timing-safe, accepts the previous secret's header
 * during a rotation, rejects stale timestamps, and returns the typed event.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './schema.ts';

export const WEBHOOK_HEADERS = {
  timestamp: 'X-SVC-Webhook-Timestamp',
  eventId: 'X-SVC-Webhook-Event-Id',
  signature: 'X-SVC-Webhook-Signature',
  previousSignature: 'X-SVC-Webhook-Signature-Previous',
} as const;

type Schemas = components['schemas'];
/** Any event the service delivers, discriminated by `event_type`. */
export type WebhookEvent =
  | Schemas['OrderStatusChangedEvent']
  | Schemas['CallAttemptCompletedEvent']
  | Schemas['OrderResultReadyEvent']
  | Schemas['WritebackFailedEvent'];
export type WebhookEventType = WebhookEvent['event_type'];

export const webhookSignature = (secret: string, timestamp: string, eventId: string, rawBody: string | Uint8Array): string =>
  createHmac('sha256', secret).update(`${timestamp}.${eventId}.`).update(rawBody).digest('hex');

const hexEqual = (a: string, b: string) =>
  a.length === 64 && b.length === 64 && /^[0-9a-f]{64}$/.test(b) && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

/**
 * The Standard Webhooks headers (standardwebhooks.com), sent beside the X-SVC ones so the
 * Standard Webhooks and Svix libraries of any language verify deliveries with the same secret.
 */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/**
 * One `v1,` signature of the Standard Webhooks scheme: base64 HMAC-SHA256 over
 * `id + "." + timestamp + "." + raw body`, keyed with the bytes the secret's base64 after
 * `whsec_` stands for (either base64 alphabet).
 */
export const standardWebhookSignature = (secret: string, id: string, timestamp: string, rawBody: string | Uint8Array): string =>
  `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${id}.${timestamp}.`)
    .update(rawBody)
    .digest('base64')}`;

export type WebhookVerification = { valid: true; eventId: string } | { valid: false; reason: 'missing_headers' | 'stale_timestamp' | 'bad_signature' };

/** Headers as Node's `req.headers`, a fetch `Headers` or a plain object, in any letter case. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

const headerOf = (headers: HeaderSource, name: string): string | undefined => {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = Object.entries(headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  return Array.isArray(value) ? value[0] : value;
};

export interface VerifyOptions {
  /** Largest accepted distance between the timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  now?: Date;
}

/** Checks a delivery's signature with any of `secrets` (the current one and, during a rotation, the previous). */
export function verifyWebhook(
  headers: HeaderSource,
  rawBody: string | Uint8Array,
  secrets: readonly string[],
  options: VerifyOptions = {},
): WebhookVerification {
  const timestamp = headerOf(headers, WEBHOOK_HEADERS.timestamp);
  const eventId = headerOf(headers, WEBHOOK_HEADERS.eventId);
  const signatures = [headerOf(headers, WEBHOOK_HEADERS.signature), headerOf(headers, WEBHOOK_HEADERS.previousSignature)].filter((s): s is string =>
    Boolean(s),
  );
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || !eventId || signatures.length === 0) return { valid: false, reason: 'missing_headers' };
  const age = Math.abs((options.now ?? new Date()).getTime() / 1000 - Number(timestamp));
  if (age > (options.toleranceSeconds ?? 300)) return { valid: false, reason: 'stale_timestamp' };
  const ok = secrets.some((secret) => {
    const expected = webhookSignature(secret, timestamp, eventId, rawBody);
    return signatures.some((s) => hexEqual(expected, s));
  });
  return ok ? { valid: true, eventId } : { valid: false, reason: 'bad_signature' };
}

/** Thrown by `constructEvent` for a delivery that must be rejected (answer it with 400). */
export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
  readonly reason: 'missing_headers' | 'stale_timestamp' | 'bad_signature' | 'event_id_mismatch';
  constructor(reason: WebhookSignatureError['reason']) {
    super(`Webhook rejected: ${reason}`);
    this.reason = reason;
  }
}

/**
 * Verifies a delivery and returns its event. Pass the raw body exactly as received.
 * @example const event = constructEvent(rawBody, req.headers, [process.env.WEBHOOK_SECRET!]);
 * @throws WebhookSignatureError when the signature, timestamp or event id does not hold
 */
export function constructEvent(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): WebhookEvent {
  const verification = verifyWebhook(headers, rawBody, typeof secrets === 'string' ? [secrets] : secrets, options);
  if (!verification.valid) throw new WebhookSignatureError(verification.reason);
  const event = JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody)) as WebhookEvent;
  if (event.event_id !== verification.eventId) throw new WebhookSignatureError('event_id_mismatch');
  return event;
}

/**
 * True when the event's envelope was over the inline limit and its `data` was left out: read
 * the order at `data.reference` instead.
 */
export function isTruncated<E extends { data?: unknown }>(
  event: E,
): event is E & { data: { truncated: true; reason: 'payload_too_large'; reference: string | null } } {
  const data = event.data as { truncated?: unknown } | undefined;
  return typeof data === 'object' && data !== null && data.truncated === true;
}
