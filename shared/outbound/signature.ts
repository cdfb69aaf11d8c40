/**
 * Webhook signatures (spec section 6, contract-decisions section 8): hex HMAC-SHA256 over
 * `timestamp + "." + event_id + "." + raw_body`. The receiver's side (`verifyWebhook`,
 * `constructEvent`) is the partner client's (`client/src/webhooks.ts`), which our tests use too.
 * Every delivery is also signed as Standard Webhooks says, for partners who use its libraries.
 */
import { STANDARD_WEBHOOK_HEADERS, standardWebhookSignature, WEBHOOK_HEADERS, webhookSignature } from '#client/webhooks.ts';

export {
  STANDARD_WEBHOOK_HEADERS,
  standardWebhookSignature,
  verifyWebhook,
  WEBHOOK_HEADERS,
  type WebhookVerification,
  webhookSignature,
} from '#client/webhooks.ts';

export function signatureHeaders(secrets: { current: string; previous?: string | undefined }, eventId: string, rawBody: string | Buffer, now: Date) {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  return {
    [WEBHOOK_HEADERS.timestamp]: timestamp,
    [WEBHOOK_HEADERS.eventId]: eventId,
    [WEBHOOK_HEADERS.signature]: webhookSignature(secrets.current, timestamp, eventId, rawBody),
    ...(secrets.previous ? { [WEBHOOK_HEADERS.previousSignature]: webhookSignature(secrets.previous, timestamp, eventId, rawBody) } : {}),
    // The same delivery as Standard Webhooks signs it: one `v1,` signature per valid secret.
    [STANDARD_WEBHOOK_HEADERS.id]: eventId,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: timestamp,
    [STANDARD_WEBHOOK_HEADERS.signature]: [secrets.current, ...(secrets.previous ? [secrets.previous] : [])]
      .map((secret) => standardWebhookSignature(secret, eventId, timestamp, rawBody))
      .join(' '),
  };
}
