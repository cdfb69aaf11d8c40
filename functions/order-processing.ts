/**
 * The composition root of order processing: its ports bound to the table, the configured
 * call platform and write-back store, built once per instance. The order handlers and the
 * workers share it.
 */
import { callPlatform } from '#shared/calls/call-platform.ts';
import { sandboxStore } from '#shared/calls/writeback.ts';
import { ttlCache } from '#shared/caching/ttl-cache.ts';
import { readProduct } from '#shared/catalog/product-store.ts';
import { resolveVariants } from '#shared/catalog/variant-index.ts';
import { readCustomer } from '#shared/customers/customer-store.ts';
import { putEventOnce } from '#shared/events/event-store.ts';
import { dynamoOrderRepository, forgetResultScenario, orderIdsWhere } from '#shared/orders/order-store.ts';
import { orderProcessing } from '#shared/orders/processing.ts';
import type { ReactionPorts } from '#shared/orders/reactions.ts';
import { activeRules } from '#shared/rules/rule-store.ts';
import { config } from './composition-root.ts';
import { tenantConfigOf } from './tenant-configs.ts';

/** A tenant's rules change rarely and every order step reads them: cached as briefly as keys and tenant configuration. */
const rules = ttlCache((tenant) => activeRules(tenant), config.authCacheSeconds * 1000);

export const processing = orderProcessing({
  orders: dynamoOrderRepository,
  customers: { read: readCustomer },
  variants: { resolve: resolveVariants },
  rules: { active: rules.get },
  tenantConfigOf,
  callPlatform: {
    ...callPlatform(config.callPlatform),
    ...(config.callStuckAfterSeconds ? { stuckAfterSeconds: config.callStuckAfterSeconds } : {}),
  },
  settings: { variantIndexGraceSeconds: config.variantIndexGraceSeconds, callRetryDelaySeconds: config.callRetryDelaySeconds },
});

export const reactionPorts: ReactionPorts = {
  processing,
  products: { read: readProduct },
  orderIdsWhere,
  store: sandboxStore,
  putEventOnce,
  forgetResultScenario,
};
