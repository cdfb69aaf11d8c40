import { tenantConfigOf } from '#functions/tenant-configs.ts';
import { capabilities } from '#shared/discovery/discovery.ts';
import { CapabilitiesSchema } from '#shared/discovery/schemas.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'getCapabilities',
  description: 'Contract version, limits, event types and features. `contract_version` equals `info.version` of this document.',
  responses: { 200: { description: 'The capabilities of this service for the calling tenant', schema: CapabilitiesSchema } },
});

export const handler = readHandler(contract, async ({ principal }) => ({
  status: 200,
  body: capabilities(await tenantConfigOf(principal.tenant)),
}));
