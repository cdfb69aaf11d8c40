/**
 * The contract's `webhooks` section (OpenAPI 3.1): one entry per event type, its envelope and
 * typed `data` from the schemas the producers write with (`shared/events/event-schemas.ts`),
 * the delivery headers and the rules a receiver must know.
 */

import type { Schema } from '#shared/api/zod.ts';
import { EVENT_DESCRIPTIONS, EVENT_SCHEMAS } from '#shared/events/event-schemas.ts';
import { EVENT_TYPES } from '#shared/events/event-types.ts';
import { RESPONSE_READ_LIMIT } from '#shared/outbound/http-post.ts';
import { STANDARD_WEBHOOK_HEADERS, WEBHOOK_HEADERS } from '#shared/outbound/signature.ts';
import { BREAKER_THRESHOLD, ENDPOINT_SLOTS, FIRST_PAUSE_SECONDS, LONGEST_PAUSE_SECONDS } from '#shared/webhooks/endpoint-guard.ts';
import { INLINE_PAYLOAD_MAX_BYTES } from '#shared/webhooks/payload.ts';
import { BACKOFF_SECONDS, MAX_ATTEMPTS } from '#shared/webhooks/retry-schedule.ts';
import { CONNECT_TIMEOUT_MS, CORRELATION_HEADER, TOTAL_TIMEOUT_MS } from '#shared/webhooks/sender.ts';

type JsonSchema = Record<string, unknown>;
type AddSchema = (schema: Schema, io: 'input' | 'output') => JsonSchema;

const duration = (seconds: number) => (seconds < 3600 ? `${seconds / 60} min` : `${seconds / 3600} h`).replace(/^0\.5 min$/, '30 s');

export const WEBHOOKS_DESCRIPTION = `## Webhooks
Events are POSTed as JSON (\`Content-Type: application/json\`) to the subscription's URL; the \`webhooks\` section lists every event type with its envelope and \`data\`.

- Headers: \`${WEBHOOK_HEADERS.timestamp}\` (Unix seconds), \`${WEBHOOK_HEADERS.eventId}\`, \`${WEBHOOK_HEADERS.signature}\` and, during a secret rotation's overlap, \`${WEBHOOK_HEADERS.previousSignature}\` (the same signature with the previous secret).
- Signature: lower-case hex HMAC-SHA256(secret, timestamp + "." + event_id + "." + raw body). Verify over the raw bytes received (never re-serialized JSON), compare in constant time, accept either header during a rotation, and reject timestamps more than 300 s from your clock.
- Standard Webhooks: every delivery also carries \`${STANDARD_WEBHOOK_HEADERS.id}\` (the event_id), \`${STANDARD_WEBHOOK_HEADERS.timestamp}\` and \`${STANDARD_WEBHOOK_HEADERS.signature}\` as the Standard Webhooks specification (standardwebhooks.com) defines them: \`v1,\` and base64 HMAC-SHA256 over id + "." + timestamp + "." + raw body, keyed with the base64-decoded part of the secret after \`whsec_\`; during a rotation's overlap one \`v1,\` signature per secret, separated by a space. So the Standard Webhooks or Svix library of your language verifies a delivery with the subscription's secret as it is.
- Success is a 2xx answered within ${CONNECT_TIMEOUT_MS / 1000} s to connect and ${TOTAL_TIMEOUT_MS / 1000} s in all; redirects are not followed and at most ${RESPONSE_READ_LIMIT / 1024} KiB of the answer is read. Anything else is retried: ${MAX_ATTEMPTS} attempts in all, waiting ${BACKOFF_SECONDS.map(duration).join(', ')} before attempts 2 to ${MAX_ATTEMPTS} (±10 % jitter), all within 24 h; then the delivery is dead-lettered and can be replayed (POST /webhook-deliveries/{deliveryId}/replay).
- Your endpoint gets at most ${ENDPOINT_SLOTS} attempts at once; a delivery that finds them taken waits its turn (1 s, doubling to at most 15 s), without spending an attempt. After ${BREAKER_THRESHOLD} consecutive failed attempts (timeouts included) its circuit breaker opens: deliveries wait, spending no attempts, for ${FIRST_PAUSE_SECONDS} s (doubling after each failed probe, at most ${LONGEST_PAUSE_SECONDS / 60} min); then one attempt probes the endpoint and a success closes the breaker. \`GET /webhook-subscription\` shows it in \`health.breaker\` and \`health.paused_until\`.
- Delivery is at least once and unordered across orders: deduplicate by \`event_id\` (a replay keeps it) and order an order's status events by their \`occurred_at\`.
- An envelope larger than ${INLINE_PAYLOAD_MAX_BYTES / 1024} KiB is delivered with \`data\` = \`{ "truncated": true, "reason": "payload_too_large", "reference": <order path> }\`: read the order instead.`;

const deliveryHeaders = [
  {
    name: WEBHOOK_HEADERS.timestamp,
    required: true,
    description: 'Unix seconds when this attempt was signed',
    schema: { type: 'string', pattern: '^[0-9]{1,12}$' },
  },
  { name: WEBHOOK_HEADERS.eventId, required: true, description: "The envelope's event_id", schema: { type: 'string' } },
  {
    name: WEBHOOK_HEADERS.signature,
    required: true,
    description: 'Hex HMAC-SHA256(secret, timestamp + "." + event_id + "." + raw body)',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
  {
    name: CORRELATION_HEADER,
    required: false,
    description: "The event's correlation_id (shared by an order's events until an accepted PATCH or upsert starts a new one), to join your logs with ours",
    schema: { type: 'string' },
  },
  {
    name: WEBHOOK_HEADERS.previousSignature,
    required: false,
    description: "The same with the previous secret, during a rotation's overlap",
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
  {
    name: STANDARD_WEBHOOK_HEADERS.id,
    required: true,
    description: 'Standard Webhooks: the event_id',
    schema: { type: 'string' },
  },
  {
    name: STANDARD_WEBHOOK_HEADERS.timestamp,
    required: true,
    description: 'Standard Webhooks: Unix seconds when this attempt was signed',
    schema: { type: 'string', pattern: '^[0-9]{1,12}$' },
  },
  {
    name: STANDARD_WEBHOOK_HEADERS.signature,
    required: true,
    description:
      'Standard Webhooks: `v1,` and base64 HMAC-SHA256(base64-decoded secret after `whsec_`, id + "." + timestamp + "." + raw body); one per valid secret, space-separated',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)?$' },
  },
].map((h) => ({ ...h, in: 'header' }));

/** One POST per event type, as OpenAPI 3.1 describes what a receiver must accept. */
export function webhooksSection(add: AddSchema): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `on_${type.replaceAll('.', '_')}`,
          summary: type,
          description: EVENT_DESCRIPTIONS[type],
          tags: ['Webhook events'],
          security: [],
          parameters: deliveryHeaders,
          requestBody: { required: true, content: { 'application/json': { schema: add(EVENT_SCHEMAS[type], 'output') } } },
          responses: {
            '200': { description: 'Any 2xx within the time limit: delivered' },
            '400': { description: 'Any other answer (or none in time): retried on the schedule above, then dead-lettered' },
          },
        },
      },
    ]),
  );
}
