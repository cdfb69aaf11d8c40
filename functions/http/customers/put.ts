import * as z from 'zod/mini';
import { ExternalId } from '#shared/api/fields.ts';
import { CustomerInputSchema, CustomerUpsertResultSchema } from '#shared/customers/customer-schemas.ts';
import { upsertCustomer } from '#shared/customers/customer-store.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'putCustomer',
  description:
    'Creates or updates a customer, versioned by `source_version`. Consent `granted` needs its proof (collected_at not in the future). ' +
    'An anonymized customer cannot be stored again: 409 `invalid_state_transition`.',
  params: z.object({ externalCustomerId: ExternalId }),
  body: CustomerInputSchema,
  responses: { 200: { description: 'Upserted, or unchanged for the stored version with identical content', schema: CustomerUpsertResultSchema } },
  problems: ['invalid_state_transition', 'stale_source_version'],
});

export const handler = mutationHandler(contract, async ({ principal, params, body, now }) => ({
  status: 200,
  body: {
    external_customer_id: params.externalCustomerId,
    outcome: await upsertCustomer(principal.tenant, params.externalCustomerId, body, now),
    consent: { status: body.consent.status },
  },
}));
