import * as z from 'zod/mini';
import { ExternalId } from '#shared/api/fields.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { SalesRuleSchema } from '#shared/rules/rule-schemas.ts';
import { getRule } from '#shared/rules/rule-store.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'getSalesRule',
  description: 'A sales rule, including an archived one (`status: archived`).',
  params: z.object({ externalRuleId: ExternalId }),
  responses: { 200: { description: 'The rule', schema: SalesRuleSchema } },
});

export const handler = readHandler(contract, async ({ principal, params }) => ({
  status: 200,
  body: await getRule(principal.tenant, params.externalRuleId),
}));
