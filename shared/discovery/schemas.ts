import * as z from 'zod/mini';
import { answerSchema } from '../api/answer-schema.ts';
import { ORDER_KINDS } from '../api/limits.ts';
import { builtSchema, integer, meta } from '../api/zod.ts';
import { EVENT_TYPES } from '../events/event-types.ts';
import { MarketSchema, QuietHoursSchema } from '../tenants/config.ts';
import { TENANT_MODES } from '../tenants/tenant-config.ts';

export const CapabilitiesSchema = answerSchema(() =>
  meta(
    z.object({
      contract_version: z.string().check(z.regex(/^\d{4}\.\d{2}\.\d{2}-draft\.\d+$/)),
      base_path: z.literal('/api/v1/commerce'),
      order_kinds: z.array(z.enum(ORDER_KINDS)),
      events: z.array(z.enum(EVENT_TYPES)),
      limits: z.object({
        products_batch_max: integer(),
        variants_per_product_max: integer(),
        order_items_max: integer(),
        rule_conditions_max: integer(),
        request_body_max_bytes: integer(),
        webhook_payload_max_bytes: integer(),
        page_limit_default: integer(),
        page_limit_max: integer(),
      }),
      features: z.object({
        webhooks: z.boolean(),
        repurchase_intents: z.boolean(),
        writeback: z.enum(['partner_dependent', 'enabled', 'disabled']),
      }),
    }),
    { id: 'Capabilities' },
  ),
);

/**
 * What keeps a tenant's orders from being called: no market; and for a live tenant, a market
 * whose customers would see no number of their country, or no store name for customers to hear.
 */
export const BLOCKER_CODES = ['no_market_configured', 'market_without_caller_id', 'no_store_name'] as const;

export const BlockerSchema = answerSchema(() =>
  meta(z.object({ code: z.enum(BLOCKER_CODES), message: z.string() }), {
    id: 'ReadinessBlocker',
    description: 'What keeps orders from being called.',
  }),
);

export const NoticeSchema = answerSchema(() =>
  meta(z.object({ code: z.enum(['no_webhook_subscription', 'webhook_subscription_disabled']), message: z.string() }), {
    id: 'ReadinessNotice',
    description: 'What is missing without blocking calls: a tenant may poll GET /orders and the results instead of receiving webhooks.',
  }),
);

export const EffectiveConfigurationSchema = answerSchema(() =>
  meta(
    z.object({
      readiness: z.enum(['ready', 'not_ready']),
      // Optional in the schema, so a client generated from an earlier version stays valid; always sent.
      mode: meta(z.optional(z.enum(TENANT_MODES)), {
        description:
          '`sandbox`: every call goes to the simulated network, whose customer behaves as the sandbox scenarios say; `live`: your real customers are called. An extension of the contract.',
      }),
      display_name: meta(z.optional(z.nullable(z.string())), {
        description: 'The store name customers hear when they are called (null: the tenant id). An extension of the contract.',
      }),
      blockers: z.array(BlockerSchema),
      notices: z.array(NoticeSchema),
      markets: z.array(
        z.extend(builtSchema(MarketSchema), {
          caller_id: meta(z.nullable(z.string()), {
            description:
              "The number this market's customers see when they are called (E.164), for a live tenant; null in the sandbox, or where the deployment has none (a blocker). An extension of the contract.",
          }),
        }),
      ),
      quiet_hours: QuietHoursSchema,
      features_enabled: z.object({ upsell: z.boolean(), repurchase_intent: z.boolean() }),
      writeback: z.object({
        enabled: z.boolean(),
        endpoint: meta(z.optional(z.nullable(z.string())), {
          description:
            'Where results are written back: your store endpoint as the platform team configured it, shown as its scheme and host only (null: none; a sandbox tenant then uses the sandbox store). Its signing secret is never shown here. An extension of the contract.',
        }),
      }),
      max_call_attempts: integer(),
      call_retry_delay_seconds: meta(integer(), {
        description:
          'The least time, in seconds, between an attempt that did not decide the order (no answer, busy, voicemail, answered without a choice) and the next: live default 1800 (at least 600), sandbox default 2. An extension of the contract.',
      }),
      rate_limit: z.object({ requests_per_second: integer(), burst: integer() }),
    }),
    { id: 'EffectiveConfiguration' },
  ),
);
