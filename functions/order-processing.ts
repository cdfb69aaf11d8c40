/**
 * The composition root of order processing: its ports bound to the table and the configured
 * call platform, built once per instance, and the partner's order commands on the very same
 * ports. The order handlers and the workers share it; the stream reactions' further ports live with the stream processor.
 */

import { ttlCache } from '#shared/caching/ttl-cache.ts';
import { callPlatform } from '#shared/calls/call-platform.ts';
import { resolveVariants } from '#shared/catalog/variant-index.ts';
import { readCustomer } from '#shared/customers/customer-store.ts';
import { orderCommands } from '#shared/orders/order-commands.ts';
import { dynamoOrderRepository } from '#shared/orders/order-store.ts';
import { orderProcessing } from '#shared/orders/processing.ts';
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

export const commands = orderCommands({ orders: processing.ports.orders, callPlatform: processing.ports.callPlatform, requalify: processing.requalify });
