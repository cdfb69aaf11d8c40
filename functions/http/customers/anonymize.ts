import * as z from 'zod/mini';
import { ExternalId } from '#shared/api/fields.ts';
import { AnonymizeResultSchema } from '#shared/customers/customer-schemas.ts';
import { anonymizeCustomer } from '#shared/customers/customer-store.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'anonymizeCustomer',
  description:
    "Irreversibly erases the customer's phone number and consent proof reference, and the personal data in their orders and call attempts. " +
    'An audit record (when, which key, which request) remains; later orders for this customer are rejected. ' +
    'Idempotent: every call answers the time of the first erasure. No request body.',
  params: z.object({ externalCustomerId: ExternalId }),
  responses: { 200: { description: 'The customer is anonymized', schema: AnonymizeResultSchema } },
});

export const handler = mutationHandler(contract, async ({ principal, params, requestId, now }) => ({
  status: 200,
  body: {
    external_customer_id: params.externalCustomerId,
    outcome: 'anonymized' as const,
    anonymized_at: await anonymizeCustomer(principal.tenant, params.externalCustomerId, principal, requestId, now),
  },
}));
