import * as z from 'zod/mini';
import { ExternalId } from '#shared/api/fields.ts';
import { MAX_SALES_RULES } from '#shared/api/limits.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { RuleInputSchema, RuleUpsertResultSchema } from '#shared/rules/rule-schemas.ts';
import { upsertRule } from '#shared/rules/rule-store.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'putSalesRule',
  description:
    'Creates or updates a sales rule, versioned by `source_version`. `action` depends on `rule_type`: replacement `{ replacement_variant }`, upsell `{ suggest_variant }`, ' +
    'cross_sell `{ suggest_variant, quantity }`, quantity_constraint `{ min_quantity?, max_quantity? }`, price_constraint `{ currency, min_price?, max_price? }`. ' +
    `\`applies_to\` holds at most 100 conditions. A tenant has at most ${MAX_SALES_RULES} rules that are not archived: a new one past that is 409 \`limit_reached\` (archive one first).`,
  params: z.object({ externalRuleId: ExternalId }),
  body: RuleInputSchema,
  responses: { 200: { description: 'Upserted, or unchanged for the stored version with identical content', schema: RuleUpsertResultSchema } },
  problems: ['stale_source_version', 'limit_reached'],
});

export const handler = mutationHandler(contract, async ({ principal, params, body, now }) => ({
  status: 200,
  body: {
    external_rule_id: params.externalRuleId,
    outcome: await upsertRule(principal.tenant, params.externalRuleId, body, now),
    enabled: body.enabled,
  },
}));
