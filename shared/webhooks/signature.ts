/**
 * Webhook signatures (spec section 6, contract-decisions section 8): hex HMAC-SHA256 over
 * `timestamp + "." + event_id + "." + raw_body`. `verifyWebhook` is the receiver's side, for
 * partners and for our own tests: timing-safe, accepts the previous secret's header during
 * a rotation overlap, rejects stale timestamps.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_HEADERS = {
  timestamp: 'X-SVC-Webhook-Timestamp',
  eventId: 'X-SVC-Webhook-Event-Id',
  signature: 'X-SVC-Webhook-Signature',
  previousSignature: 'X-SVC-Webhook-Signature-Previous',
} as const;

export const webhookSignature = (secret: string, timestamp: string, eventId: string, rawBody: string | Buffer): string =>
  createHmac('sha256', secret).update(`${timestamp}.${eventId}.`).update(rawBody).digest('hex');

export function signatureHeaders(secrets: { current: string; previous?: string | undefined }, eventId: string, rawBody: string | Buffer, now: Date) {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  return {
    [WEBHOOK_HEADERS.timestamp]: timestamp,
    [WEBHOOK_HEADERS.eventId]: eventId,
    [WEBHOOK_HEADERS.signature]: webhookSignature(secrets.current, timestamp, eventId, rawBody),
    ...(secrets.previous ? { [WEBHOOK_HEADERS.previousSignature]: webhookSignature(secrets.previous, timestamp, eventId, rawBody) } : {}),
  };
}

const hexEqual = (a: string, b: string) => {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === 32 && y.length === 32 && a.length === 64 && b.length === 64 && timingSafeEqual(x, y);
};

export type WebhookVerification = { valid: true; eventId: string } | { valid: false; reason: 'missing_headers' | 'stale_timestamp' | 'bad_signature' };

/**
 * Verifies a delivery as a receiver should. `headers` may use any letter case; `secrets` are
 * the receiver's secrets (the new one and, during an overlap, the old one).
 * @example verifyWebhook(req.headers, rawBody, [process.env.WEBHOOK_SECRET], { toleranceSeconds: 300 })
 */
export function verifyWebhook(
  headers: Record<string, string | string[] | undefined>,
  rawBody: string | Buffer,
  secrets: readonly string[],
  options: { toleranceSeconds?: number; now?: Date } = {},
): WebhookVerification {
  const get = (name: string) => {
    const value = Object.entries(headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
    return Array.isArray(value) ? value[0] : value;
  };
  const timestamp = get(WEBHOOK_HEADERS.timestamp);
  const eventId = get(WEBHOOK_HEADERS.eventId);
  const signatures = [get(WEBHOOK_HEADERS.signature), get(WEBHOOK_HEADERS.previousSignature)].filter((s): s is string => Boolean(s));
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || !eventId || signatures.length === 0) return { valid: false, reason: 'missing_headers' };
  const age = Math.abs((options.now ?? new Date()).getTime() / 1000 - Number(timestamp));
  if (age > (options.toleranceSeconds ?? 300)) return { valid: false, reason: 'stale_timestamp' };
  const ok = secrets.some((secret) => {
    const expected = webhookSignature(secret, timestamp, eventId, rawBody);
    return signatures.some((s) => hexEqual(expected, s));
  });
  return ok ? { valid: true, eventId } : { valid: false, reason: 'bad_signature' };
}
