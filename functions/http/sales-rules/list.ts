import { defineOperation } from '#shared/http/operation.ts';
import { listQuery, pageOf } from '#shared/http/page-query.ts';
import { ruleListFilters, SalesRuleSummarySchema } from '#shared/rules/rule-schemas.ts';
import { listRules } from '#shared/rules/rule-store.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'listSalesRules',
  description: 'Unarchived sales rules in order of `external_rule_id`, optionally filtered by `enabled`.',
  query: listQuery(ruleListFilters),
  responses: { 200: { description: 'A page of rules', schema: pageOf(SalesRuleSummarySchema) } },
});

export const handler = readHandler(contract, async ({ principal, query }) => ({
  status: 200,
  body: await listRules(principal.tenant, query.enabled, { limit: query.limit, cursor: query.cursor }),
}));
