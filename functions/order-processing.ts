/**
 * The composition root of order processing: its ports bound to the table and the configured
 * call platform, built once per instance, and the partner's order commands on the very same
 * ports. The order handlers and the workers share it; the stream reactions' further ports live with the stream processor.
 */

import { ttlCache } from '#shared/caching/ttl-cache.ts';
import { type CallPlatform, platformFor } from '#shared/calls/call-platform.ts';
import { resolveVariants } from '#shared/catalog/variant-index.ts';
import { readCustomer } from '#shared/customers/customer-store.ts';
import { orderCommands } from '#shared/orders/order-commands.ts';
import { dynamoOrderRepository } from '#shared/orders/order-store.ts';
import { orderProcessing } from '#shared/orders/processing.ts';
import { activeRules } from '#shared/rules/rule-store.ts';
import { callSlots, dialRate, platforms } from './call-platforms.ts';
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
  callPlatforms: platforms,
  dialRate,
  callSlots,
  settings: { variantIndexGraceSeconds: config.variantIndexGraceSeconds, callRetryDelaySeconds: config.callRetryDelaySeconds },
});

/** A cancel during a call ends it on the platform the tenant's mode calls through. */
const cancelCall: Pick<CallPlatform, 'cancel'> = {
  cancel: async (request) => platformFor(platforms, (await tenantConfigOf(request.tenant)).mode)?.cancel(request),
};

export const commands = orderCommands({ orders: processing.ports.orders, callPlatform: cancelCall, requalify: processing.requalify });
