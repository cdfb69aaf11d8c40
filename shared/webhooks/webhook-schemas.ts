/** Webhook subscription and delivery log (spec 2.7, 4.7; contract-decisions section 8). */
import * as z from 'zod/mini';
import { answerSchema } from '../api/answer-schema.ts';
import { Rfc3339, UtcTime } from '../api/fields.ts';
import { builtOnFirstUse, integer, meta } from '../api/zod.ts';
import { DNS_TIMEOUT_MS, URL_REFUSALS } from '../outbound/url-refusals.ts';

const WEBHOOK_URL_RULES =
  'A public https URL on port 443 (an explicit `:443` or none; no other port), at most 2,048 characters. ' +
  `Refused with 422 at the pointer \`/url\` with one of these messages: ${Object.values(URL_REFUSALS)
    .map((refusal) => `\`${refusal}\``)
    .join(
      ', ',
    )} or \`<host> does not resolve to a public address\` (no answer within ${DNS_TIMEOUT_MS / 1000} s, or an address that is not public: the same words for both, so an answer says nothing about the service's own network). ` +
  'Checked again before every delivery (resolved afresh, the connection pinned to a checked address); a refusal then fails the attempt with `url_refused: <message>`.';

import { EVENT_TYPES } from '../events/event-types.ts';

export const DELIVERY_STATUSES = ['queued', 'delivering', 'retrying', 'delivered', 'dead_lettered'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A list of event types, each at most once. */
const EventTypeList = builtOnFirstUse(() =>
  z.array(z.enum(EVENT_TYPES)).check(
    z.minLength(1),
    z.maxLength(EVENT_TYPES.length),
    z.refine((types) => new Set(types).size === types.length, 'must not repeat an event type'),
  ),
);

export const PutSubscriptionSchema = builtOnFirstUse(() =>
  meta(
    z.strictObject({
      url: meta(z.string().check(z.maxLength(2048)), { description: WEBHOOK_URL_RULES }),
      event_types: EventTypeList,
      enabled: z._default(z.boolean(), true),
    }),
    { id: 'WebhookSubscriptionInput' },
  ),
);

export const HealthSchema = answerSchema(() =>
  meta(
    z.object({
      status: z.enum(['healthy', 'degraded', 'failing']),
      consecutive_failures: integer(),
      last_success_at: z.nullable(UtcTime),
      last_failure_at: z.nullable(UtcTime),
      success_rate_24h: meta(z.nullable(z.number()), { description: 'Share of attempts in the last 24 hours answered 2xx; null without attempts' }),
      breaker: meta(z.enum(['closed', 'open', 'half_open']), {
        description:
          'The endpoint circuit breaker: `open` after 5 consecutive failed attempts (timeouts included), when deliveries wait without spending attempts until `paused_until` ' +
          '(30 s, doubling on each failed probe up to 10 min); `half_open` while one attempt probes the endpoint; `closed` again after a success.',
      }),
      paused_until: meta(z.nullable(UtcTime), { description: 'While the breaker is open: when the endpoint is tried again' }),
    }),
    { id: 'WebhookHealth' },
  ),
);

export const SubscriptionSchema = answerSchema(() =>
  meta(
    z.object({
      url: meta(z.string(), { description: 'Masked: scheme, host and the last four characters of the path', example: 'https://hooks.example.com/…/a1b2' }),
      event_types: z.array(z.enum(EVENT_TYPES)),
      enabled: z.boolean(),
      disabled_reason: meta(z.nullable(z.enum(['endpoint_failing'])), {
        description: 'Set when the service disabled the subscription: every delivery attempt failed for 5 days. A PUT with enabled: true enables it again.',
      }),
      disabled_at: meta(z.nullable(UtcTime), { description: 'When the service disabled it' }),
      health: HealthSchema,
      secret_last_rotated_at: UtcTime,
      previous_secret_expires_at: z.nullable(UtcTime),
      created_at: UtcTime,
      updated_at: UtcTime,
      secret: meta(z.optional(z.string()), {
        description:
          'Only in the answer to the PUT that creates the subscription: store it now, it is never shown again. `whsec_` and base64: the key of both signatures (X-SVC-Webhook-Signature keys HMAC with the whole string, webhook-signature with the bytes after `whsec_`)',
      }),
      secret_already_shown: meta(z.optional(z.literal(true)), {
        description: 'In a replay (same Idempotency-Key) of the PUT that created the subscription: the secret was shown once and is not shown again',
      }),
    }),
    { id: 'WebhookSubscription' },
  ),
);

export const RotateSchema = builtOnFirstUse(() =>
  meta(
    z.strictObject({
      previous_secret_expires_in: meta(z._default(integer(0, 604_800), 86_400), {
        description: 'Seconds the old secret stays valid; 0 ends it at once (a leaked secret)',
      }),
    }),
    { id: 'RotateSecretRequest' },
  ),
);

export const RotateResultSchema = answerSchema(() =>
  meta(
    z.object({
      secret: meta(z.optional(z.string()), { description: 'The new secret, in the answer to the rotation itself only' }),
      secret_already_shown: meta(z.optional(z.literal(true)), {
        description: 'In a replay (same Idempotency-Key): the new secret was shown once and is not shown again',
      }),
      previous_secret_expires_at: z.nullable(UtcTime),
      secret_last_rotated_at: UtcTime,
    }),
    { id: 'RotateSecretResult' },
  ),
);

export const LastAttemptSchema = answerSchema(() =>
  z.object({
    at: z.string(),
    status_code: z.nullable(integer()),
    error: z.nullable(z.string()),
    latency_ms: integer(),
  }),
);

/** What a delivery and a delivery with its attempt log both hold (built inside each answer's builder, on first use). */
const deliveryFields = () => ({
  delivery_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: integer(),
  created_at: UtcTime,
  delivered_at: z.nullable(UtcTime),
  next_attempt_at: z.nullable(UtcTime),
  replay_of: z.nullable(z.string()),
  recovered_by: meta(z.nullable(z.string()), {
    description:
      'On a dead-lettered delivery that was recovered (re-sent as a new delivery by `recover`): the id of that new delivery. It stays `dead_lettered`, and a redrive of its old dead letter sends nothing',
  }),
  last_attempt: z.nullable(LastAttemptSchema),
});

export const DeliverySchema = answerSchema(() => meta(z.object(deliveryFields()), { id: 'WebhookDelivery' }));
export type Delivery = z.output<typeof DeliverySchema>;

export const DeliveryIdParams = builtOnFirstUse(() =>
  z.object({ deliveryId: z.string().check(z.regex(/^dlv_[A-Za-z0-9_-]{1,64}$/, 'must be a delivery id such as dlv_…')) }),
);

export const DeliveryWithAttemptsSchema = answerSchema(() =>
  meta(
    z.object({
      ...deliveryFields(),
      attempt_log: z.array(
        z.object({
          attempt: integer(),
          at: z.string(),
          status_code: z.nullable(integer()),
          error: meta(z.nullable(z.string()), { description: '`timeout`, `connection_failed`, `http_<status>` or `url_refused: …`' }),
          latency_ms: integer(),
          response_excerpt: meta(z.string(), {
            description:
              "The receiver's answer, its first 1,024 characters, with e-mail addresses, phone and card-like numbers, credentials (`Bearer …`, `token=…`) and long opaque tokens masked",
          }),
        }),
      ),
    }),
    { id: 'WebhookDeliveryWithAttempts' },
  ),
);

/** The delivery list's own filters (with `limit` and `cursor`: `listQuery`). */
export const deliveryListFilters = () => z.strictObject({ status: z.optional(z.enum(DELIVERY_STATUSES)) });

export const ReplayResultSchema = answerSchema(() =>
  meta(z.object({ delivery_id: z.string(), replay_of: z.string(), event_id: z.string(), status: z.literal('queued') }), { id: 'WebhookReplayResult' }),
);

export const TestResultSchema = answerSchema(() =>
  meta(
    z.object({
      event_id: z.string(),
      delivery_id: meta(z.nullable(z.string()), {
        description:
          'The delivery to watch in GET /webhook-deliveries; null when there is no subscription and the event went to your live listen sessions only',
      }),
      status: z.literal('queued'),
    }),
    { id: 'WebhookTestResult' },
  ),
);

/** Deliveries one POST /webhook-deliveries/recover re-sends at most. */
export const RECOVER_PAGE = 50;

export const RecoverRequestSchema = builtOnFirstUse(() =>
  meta(z.strictObject({ since: meta(Rfc3339, { description: 'Deliveries created at or after this time (RFC 3339)' }) }), {
    id: 'WebhookRecoverRequest',
  }),
);

export const RecoverResultSchema = answerSchema(() =>
  meta(
    z.object({
      recovered: z.array(z.object({ original: z.string(), replay: z.string() })),
      more: meta(z.boolean(), { description: 'More dead-lettered deliveries are left: call again with the same `since`' }),
    }),
    { id: 'WebhookRecoverResult' },
  ),
);

export const ListenSessionRequestSchema = builtOnFirstUse(() =>
  meta(
    z.strictObject({
      event_types: meta(z.optional(EventTypeList), { description: 'The event types to feed (default: all); test events always come' }),
    }),
    { id: 'ListenSessionInput' },
  ),
);

export const ListenSessionSchema = answerSchema(() =>
  meta(
    z.object({
      listen_session_id: z.string(),
      event_types: z.array(z.enum(EVENT_TYPES)),
      expires_at: meta(UtcTime, { description: 'The session ends then unless its feed is read before; each read renews it' }),
    }),
    { id: 'ListenSession' },
  ),
);

export const ListenSessionParams = builtOnFirstUse(() =>
  z.object({
    listenSessionId: z.string().check(z.regex(/^lsn_[a-f0-9]{32}$/, 'must be a listen session id such as lsn_…')),
  }),
);

export const ListenFeedQuery = builtOnFirstUse(() =>
  z.strictObject({
    after: meta(
      z.optional(z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z#evt_[A-Za-z0-9_-]{1,64}$/, 'must be a `cursor` or `next_after` of an earlier read'))),
      { description: 'The `next_after` of the previous read: entries after it' },
    ),
  }),
);

export const ListenFeedSchema = answerSchema(() =>
  meta(
    z.object({
      data: z.array(
        z.object({
          cursor: z.string(),
          event_id: z.string(),
          event_type: z.string(),
          payload: meta(z.string(), { description: 'The exact bytes a subscription delivery of the event carries (sign and forward them as they are)' }),
        }),
      ),
      next_after: meta(z.nullable(z.string()), { description: 'Pass as `after` on the next read; null while the feed is empty' }),
      expires_at: UtcTime,
    }),
    { id: 'ListenFeed' },
  ),
);
