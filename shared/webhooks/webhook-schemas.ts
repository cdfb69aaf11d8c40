/** Webhook subscription and delivery log (spec 2.7, 4.7; contract-decisions section 8). */
import * as z from 'zod';
import { answerSchema } from '../api/answer-schema.ts';
import { Rfc3339, UtcTime } from '../api/fields.ts';
import { DNS_TIMEOUT_MS, URL_REFUSALS } from './url-refusals.ts';

const WEBHOOK_URL_RULES =
  'A public https URL on port 443 (an explicit `:443` or none; no other port), at most 2,048 characters. ' +
  `Refused with 422 at the pointer \`/url\` with one of these messages: ${Object.values(URL_REFUSALS)
    .map((refusal) => `\`${refusal}\``)
    .join(', ')}, \`could not resolve <host>\` (no answer within ${DNS_TIMEOUT_MS / 1000} s) or \`<host> resolves to a non-public address\`. ` +
  'Checked again before every delivery (resolved afresh, the connection pinned to a checked address); a refusal then fails the attempt with `url_refused: <message>`.';
import { EVENT_TYPES } from '../events/event-types.ts';

export const DELIVERY_STATUSES = ['queued', 'delivering', 'retrying', 'delivered', 'dead_lettered'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const PutSubscriptionSchema = z
  .strictObject({
    url: z.string().max(2048).meta({ description: WEBHOOK_URL_RULES }),
    event_types: z
      .array(z.enum(EVENT_TYPES))
      .min(1)
      .max(EVENT_TYPES.length)
      .refine((types) => new Set(types).size === types.length, 'must not repeat an event type'),
    enabled: z.boolean().default(true),
  })
  .meta({ id: 'WebhookSubscriptionInput' });

export const HealthSchema = answerSchema(() =>
  z
    .object({
      status: z.enum(['healthy', 'degraded', 'failing']),
      consecutive_failures: z.number().int(),
      last_success_at: UtcTime.nullable(),
      last_failure_at: UtcTime.nullable(),
      success_rate_24h: z.number().nullable().meta({ description: 'Share of attempts in the last 24 hours answered 2xx; null without attempts' }),
      breaker: z.enum(['closed', 'open', 'half_open']).meta({
        description:
          'The endpoint circuit breaker: `open` after 5 consecutive failed attempts (timeouts included), when deliveries wait without spending attempts until `paused_until` ' +
          '(30 s, doubling on each failed probe up to 10 min); `half_open` while one attempt probes the endpoint; `closed` again after a success.',
      }),
      paused_until: UtcTime.nullable().meta({ description: 'While the breaker is open: when the endpoint is tried again' }),
    })
    .meta({ id: 'WebhookHealth' }),
);

export const SubscriptionSchema = answerSchema(() =>
  z
    .object({
      url: z.string().meta({ description: 'Masked: scheme, host and the last four characters of the path', example: 'https://hooks.example.com/…/a1b2' }),
      event_types: z.array(z.enum(EVENT_TYPES)),
      enabled: z.boolean(),
      disabled_reason: z.enum(['endpoint_failing']).nullable().meta({
        description: 'Set when the service disabled the subscription: every delivery attempt failed for 5 days. A PUT with enabled: true enables it again.',
      }),
      disabled_at: UtcTime.nullable().meta({ description: 'When the service disabled it' }),
      health: HealthSchema,
      secret_last_rotated_at: UtcTime,
      previous_secret_expires_at: UtcTime.nullable(),
      created_at: UtcTime,
      updated_at: UtcTime,
      secret: z.string().optional().meta({
        description:
          'Only in the answer to the PUT that creates the subscription: store it now, it is never shown again. `whsec_` and base64: the key of both signatures (X-SVC-Webhook-Signature keys HMAC with the whole string, webhook-signature with the bytes after `whsec_`)',
      }),
      secret_already_shown: z
        .literal(true)
        .optional()
        .meta({ description: 'In a replay (same Idempotency-Key) of the PUT that created the subscription: the secret was shown once and is not shown again' }),
    })
    .meta({ id: 'WebhookSubscription' }),
);

export const RotateSchema = z
  .strictObject({
    previous_secret_expires_in: z
      .number()
      .int()
      .min(0)
      .max(604_800)
      .default(86_400)
      .meta({ description: 'Seconds the old secret stays valid; 0 ends it at once (a leaked secret)' }),
  })
  .meta({ id: 'RotateSecretRequest' });

export const RotateResultSchema = answerSchema(() =>
  z
    .object({
      secret: z.string().optional().meta({ description: 'The new secret, in the answer to the rotation itself only' }),
      secret_already_shown: z
        .literal(true)
        .optional()
        .meta({ description: 'In a replay (same Idempotency-Key): the new secret was shown once and is not shown again' }),
      previous_secret_expires_at: UtcTime.nullable(),
      secret_last_rotated_at: UtcTime,
    })
    .meta({ id: 'RotateSecretResult' }),
);

export const LastAttemptSchema = answerSchema(() =>
  z.object({
    at: z.string(),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    latency_ms: z.number().int(),
  }),
);

export const DeliverySchema = answerSchema(() =>
  z
    .object({
      delivery_id: z.string(),
      event_id: z.string(),
      event_type: z.string(),
      status: z.enum(DELIVERY_STATUSES),
      attempts: z.number().int(),
      created_at: UtcTime,
      delivered_at: UtcTime.nullable(),
      next_attempt_at: UtcTime.nullable(),
      replay_of: z.string().nullable(),
      recovered_by: z.string().nullable().meta({
        description:
          'On a dead-lettered delivery that was recovered (re-sent as a new delivery by `recover`): the id of that new delivery. It stays `dead_lettered`, and a redrive of its old dead letter sends nothing',
      }),
      last_attempt: LastAttemptSchema.nullable(),
    })
    .meta({ id: 'WebhookDelivery' }),
);
export type Delivery = z.output<typeof DeliverySchema>;

export const DeliveryIdParams = z.object({ deliveryId: z.string().regex(/^dlv_[A-Za-z0-9_-]{1,64}$/, 'must be a delivery id such as dlv_…') });

export const DeliveryWithAttemptsSchema = answerSchema(() =>
  DeliverySchema.unwrap()
    .extend({
      attempt_log: z.array(
        z.object({
          attempt: z.number().int(),
          at: z.string(),
          status_code: z.number().int().nullable(),
          error: z.string().nullable().meta({ description: '`timeout`, `connection_failed`, `http_<status>` or `url_refused: …`' }),
          latency_ms: z.number().int(),
          response_excerpt: z.string().meta({
            description:
              "The receiver's answer, its first 1,024 characters, with e-mail addresses, phone and card-like numbers, credentials (`Bearer …`, `token=…`) and long opaque tokens masked",
          }),
        }),
      ),
    })
    .meta({ id: 'WebhookDeliveryWithAttempts' }),
);

export const DeliveryListQuery = z.strictObject({ status: z.enum(DELIVERY_STATUSES).optional() });

export const ReplayResultSchema = answerSchema(() =>
  z.object({ delivery_id: z.string(), replay_of: z.string(), event_id: z.string(), status: z.literal('queued') }).meta({ id: 'WebhookReplayResult' }),
);

export const TestResultSchema = answerSchema(() =>
  z.object({ event_id: z.string(), delivery_id: z.string(), status: z.literal('queued') }).meta({ id: 'WebhookTestResult' }),
);

/** Deliveries one POST /webhook-deliveries/recover re-sends at most. */
export const RECOVER_PAGE = 50;

export const RecoverRequestSchema = z
  .strictObject({ since: Rfc3339.meta({ description: 'Deliveries created at or after this time (RFC 3339)' }) })
  .meta({ id: 'WebhookRecoverRequest' });

export const RecoverResultSchema = answerSchema(() =>
  z
    .object({
      recovered: z.array(z.object({ original: z.string(), replay: z.string() })),
      more: z.boolean().meta({ description: 'More dead-lettered deliveries are left: call again with the same `since`' }),
    })
    .meta({ id: 'WebhookRecoverResult' }),
);

export const ListenSessionRequestSchema = z
  .strictObject({
    event_types: z
      .array(z.enum(EVENT_TYPES))
      .min(1)
      .max(EVENT_TYPES.length)
      .refine((types) => new Set(types).size === types.length, 'must not repeat an event type')
      .optional()
      .meta({ description: 'The event types to feed (default: all); test events always come' }),
  })
  .meta({ id: 'ListenSessionInput' });

export const ListenSessionSchema = answerSchema(() =>
  z
    .object({
      listen_session_id: z.string(),
      event_types: z.array(z.enum(EVENT_TYPES)),
      expires_at: UtcTime.meta({ description: 'The session ends then unless its feed is read before; each read renews it' }),
    })
    .meta({ id: 'ListenSession' }),
);

export const ListenSessionParams = z.object({
  listenSessionId: z.string().regex(/^lsn_[a-f0-9]{32}$/, 'must be a listen session id such as lsn_…'),
});

export const ListenFeedQuery = z.strictObject({
  after: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z#evt_[A-Za-z0-9_-]{1,64}$/, 'must be a `cursor` or `next_after` of an earlier read')
    .optional()
    .meta({ description: 'The `next_after` of the previous read: entries after it' }),
});

export const ListenFeedSchema = answerSchema(() =>
  z
    .object({
      data: z.array(
        z.object({
          cursor: z.string(),
          event_id: z.string(),
          event_type: z.string(),
          payload: z.string().meta({ description: 'The exact bytes a subscription delivery of the event carries (sign and forward them as they are)' }),
        }),
      ),
      next_after: z.string().nullable().meta({ description: 'Pass as `after` on the next read; null while the feed is empty' }),
      expires_at: UtcTime,
    })
    .meta({ id: 'ListenFeed' }),
);
