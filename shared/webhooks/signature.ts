/**
 * Webhook signatures (spec section 6, contract-decisions section 8): hex HMAC-SHA256 over
 * `timestamp + "." + event_id + "." + raw_body`. The receiver's side (`verifyWebhook`,
 * `constructEvent`) is the partner client's (`client/src/webhooks.ts`), which our tests use too.
 */
import { WEBHOOK_HEADERS, webhookSignature } from '#client/webhooks.ts';

export { verifyWebhook, WEBHOOK_HEADERS, type WebhookVerification, webhookSignature } from '#client/webhooks.ts';

export function signatureHeaders(secrets: { current: string; previous?: string | undefined }, eventId: string, rawBody: string | Buffer, now: Date) {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  return {
    [WEBHOOK_HEADERS.timestamp]: timestamp,
    [WEBHOOK_HEADERS.eventId]: eventId,
    [WEBHOOK_HEADERS.signature]: webhookSignature(secrets.current, timestamp, eventId, rawBody),
    ...(secrets.previous ? { [WEBHOOK_HEADERS.previousSignature]: webhookSignature(secrets.previous, timestamp, eventId, rawBody) } : {}),
  };
}
