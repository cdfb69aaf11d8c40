/** Discovery (spec 2.8, 2.9): pure functions of the tenant's stored configuration. */
import type * as z from 'zod/mini';
import { CONTRACT_VERSION } from '../api/contract-version.ts';
import {
  DEFAULT_PAGE_SIZE,
  MAX_ORDER_ITEMS,
  MAX_PAGE_SIZE,
  MAX_PRODUCTS_PER_BATCH,
  MAX_RULE_CONDITIONS,
  MAX_VARIANTS_PER_PRODUCT,
  ORDER_KINDS,
} from '../api/limits.ts';
import { BASE_PATH } from '../api/routes.ts';
import { EVENT_TYPES } from '../events/event-types.ts';
import { MAX_BODY_BYTES } from '../http/limits.ts';
import type { TenantConfig } from '../tenants/config.ts';
import { retryDelaySecondsOf } from '../tenants/tenant-config.ts';
import { INLINE_PAYLOAD_MAX_BYTES } from '../webhooks/payload.ts';
import type { BlockerSchema, CapabilitiesSchema, EffectiveConfigurationSchema, NoticeSchema } from './schemas.ts';

/** Each limit from where it is enforced, so what partners read is what the service does. */
export const LIMITS = {
  products_batch_max: MAX_PRODUCTS_PER_BATCH,
  variants_per_product_max: MAX_VARIANTS_PER_PRODUCT,
  order_items_max: MAX_ORDER_ITEMS,
  rule_conditions_max: MAX_RULE_CONDITIONS,
  request_body_max_bytes: MAX_BODY_BYTES,
  // Larger envelopes are sent truncated (`data.truncated`), never refused.
  webhook_payload_max_bytes: INLINE_PAYLOAD_MAX_BYTES,
  page_limit_default: DEFAULT_PAGE_SIZE,
  page_limit_max: MAX_PAGE_SIZE,
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

/**
 * The configuration in force for a tenant, as its partner sees it. `callerIds`: the deployment's
 * claimed number per country, which a live tenant's customers see.
 */
export function effectiveConfiguration(
  config: TenantConfig,
  subscription: WebhookSubscriptionState | undefined,
  callerIds: Readonly<Record<string, string>> = {},
): z.infer<typeof EffectiveConfigurationSchema> {
  const blockers: z.infer<typeof BlockerSchema>[] = [];
  if (config.markets.length === 0) {
    blockers.push({ code: 'no_market_configured', message: 'No market is configured; calls cannot be scheduled.' });
  }
  const live = config.mode === 'live';
  const markets = config.markets.map((market) => ({ ...market, caller_id: live ? (callerIds[market.country] ?? null) : null }));
  const uncalled = markets.filter((m) => live && m.caller_id === null).map((m) => m.country);
  if (uncalled.length > 0) {
    blockers.push({
      code: 'market_without_caller_id',
      message: `The deployment has no number for ${uncalled.join(', ')}: those customers are not called until the platform team claims one.`,
    });
  }
  if (live && config.display_name === null && config.markets.some((m) => m.display_name === undefined)) {
    blockers.push({ code: 'no_store_name', message: 'No store name (display_name) is configured: customers would hear your tenant id instead of your store.' });
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
    mode: config.mode,
    display_name: config.display_name,
    blockers,
    notices,
    markets,
    quiet_hours: config.quiet_hours,
    features_enabled: config.features_enabled,
    writeback: { enabled: config.writeback.enabled, endpoint: maskedEndpoint(config.writeback.url) },
    max_call_attempts: config.max_call_attempts,
    call_retry_delay_seconds: retryDelaySecondsOf(config),
    rate_limit: config.rate_limit,
  };
}

/** A write-back endpoint as the partner sees it: its scheme and host, never its path or query (they may carry a token). */
function maskedEndpoint(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/…`;
  } catch {
    return '…';
  }
}
