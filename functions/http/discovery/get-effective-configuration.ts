import { config as runtime } from '#functions/composition-root.ts';
import { tenantConfigOf } from '#functions/tenant-configs.ts';
import { effectiveConfiguration } from '#shared/discovery/discovery.ts';
import { EffectiveConfigurationSchema } from '#shared/discovery/schemas.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { readWebhookSubscription } from '#shared/webhooks/subscription-store.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'getEffectiveConfiguration',
  description: 'The sanitized configuration in force for the calling tenant (no secrets), with `readiness` and the `blockers` that keep it from being ready.',
  responses: { 200: { description: 'Effective configuration and readiness', schema: EffectiveConfigurationSchema } },
});

export const handler = readHandler(contract, async ({ principal }) => {
  const [config, subscription] = await Promise.all([tenantConfigOf(principal.tenant), readWebhookSubscription(principal.tenant)]);
  return { status: 200, body: effectiveConfiguration(config, subscription, runtime.connect?.callerIds) };
});
