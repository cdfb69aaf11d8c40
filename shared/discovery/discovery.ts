/** Discovery (spec 2.8, 2.9): pure functions of the tenant's stored configuration. */
import type { z } from 'zod';
import { BASE_PATH } from '../api/routes.ts';
import { CONTRACT_VERSION } from '../api/contract-version.ts';
import { MAX_BODY_BYTES } from '../http/limits.ts';
import type { TenantConfig } from '../tenants/config.ts';
import { EVENT_TYPES } from '../events/event-types.ts';
import { ORDER_KINDS } from '../orders/order-schemas.ts';
import type { BlockerSchema, CapabilitiesSchema, EffectiveConfigurationSchema, NoticeSchema } from './schemas.ts';

export const LIMITS = {
  products_batch_max: 500,
  variants_per_product_max: 100,
  order_items_max: 250,
  rule_conditions_max: 100,
  request_body_max_bytes: MAX_BODY_BYTES,
  webhook_payload_max_bytes: 1024 * 1024,
  page_limit_default: 50,
  page_limit_max: 200,
} as const;

export function capabilities(config: TenantConfig): z.infer<typeof CapabilitiesSchema> {
  return {
    contract_version: CONTRACT_VERSION,
    base_path: BASE_PATH as '/api/v1/commerce',
    order_kinds: config.features_enabled.repurchase_intent ? [...ORDER_KINDS] : ['standard'],
    events: [...EVENT_TYPES],
    limits: { ...LIMITS },
    features: { webhooks: true, repurchase_intents: config.features_enabled.repurchase_intent, writeback: 'partner_dependent' },
  };
}

export interface WebhookSubscriptionState {
  enabled: boolean;
}

export function effectiveConfiguration(config: TenantConfig, subscription: WebhookSubscriptionState | undefined): z.infer<typeof EffectiveConfigurationSchema> {
  const blockers: z.infer<typeof BlockerSchema>[] = [];
  if (config.markets.length === 0) {
    blockers.push({ code: 'no_market_configured', message: 'No market is configured; calls cannot be scheduled.' });
  }
  const notices: z.infer<typeof NoticeSchema>[] = [];
  if (!subscription) {
    notices.push({
      code: 'no_webhook_subscription',
      message: 'No webhook subscription exists: events are not pushed, so poll GET /orders and the results, or create one with PUT /webhook-subscription.',
    });
  } else if (!subscription.enabled) {
    notices.push({ code: 'webhook_subscription_disabled', message: 'The webhook subscription is disabled: events are not pushed until it is enabled.' });
  }
  return {
    readiness: blockers.length === 0 ? 'ready' : 'not_ready',
    blockers,
    notices,
    markets: config.markets,
    quiet_hours: config.quiet_hours,
    features_enabled: config.features_enabled,
    writeback: config.writeback,
    max_call_attempts: config.max_call_attempts,
    rate_limit: config.rate_limit,
  };
}
