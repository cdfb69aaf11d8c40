import * as z from 'zod/mini';
import { ExternalId } from '#shared/api/fields.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { SalesRuleSchema } from '#shared/rules/rule-schemas.ts';
import { archiveRule } from '#shared/rules/rule-store.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'archiveSalesRule',
  description: 'Archives the rule (a tombstone: it no longer applies and leaves the list) and returns it. A newer `source_version` revives it.',
  params: z.object({ externalRuleId: ExternalId }),
  responses: { 200: { description: 'The archived rule', schema: SalesRuleSchema } },
});

export const handler = mutationHandler(contract, async ({ principal, params, now }) => ({
  status: 200,
  body: await archiveRule(principal.tenant, params.externalRuleId, now),
}));
