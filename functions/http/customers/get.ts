import * as z from 'zod/mini';
import { ExternalId } from '#shared/api/fields.ts';
import { CustomerSchema } from '#shared/customers/customer-schemas.ts';
import { readCustomer } from '#shared/customers/customer-store.ts';
import { customerView } from '#shared/customers/customers.ts';
import { NotFoundError } from '#shared/errors.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'getCustomer',
  description:
    'The sanitized view of a customer: masked phone, locale, consent status with the proof source and time, timestamps. Never the phone number or the proof reference.',
  params: z.object({ externalCustomerId: ExternalId }),
  responses: { 200: { description: 'The sanitized customer', schema: CustomerSchema } },
});

export const handler = readHandler(contract, async ({ principal, params }) => {
  const item = await readCustomer(principal.tenant, params.externalCustomerId);
  if (!item) throw new NotFoundError(`No customer ${params.externalCustomerId}.`);
  return { status: 200, body: customerView(item) };
});
