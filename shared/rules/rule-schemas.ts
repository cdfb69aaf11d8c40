/** Sales rules (spec 2.6, 4.6): one schema per rule type, so each action is validated for its type. */
import * as z from 'zod/mini';
import { answerSchema } from '../api/answer-schema.ts';
import { BooleanQuery, CurrencyCode, checkMoney, ExternalId, MoneyAmount, SourceVersion, UtcTime } from '../api/fields.ts';
import { MAX_RULE_CONDITIONS } from '../api/limits.ts';
import { builtOnFirstUse, integer, meta, text } from '../api/zod.ts';

export const RULE_TYPES = ['replacement', 'upsell', 'cross_sell', 'quantity_constraint', 'price_constraint'] as const;
export type RuleType = (typeof RULE_TYPES)[number];

export const AppliesToSchema = builtOnFirstUse(() =>
  meta(
    z
      .strictObject({
        category: meta(z.optional(text(1, 500)), { description: 'Category path prefix (whole segments)' }),
        external_product_ids: z.optional(z.array(ExternalId).check(z.minLength(1), z.maxLength(MAX_RULE_CONDITIONS))),
        external_variant_ids: z.optional(z.array(ExternalId).check(z.minLength(1), z.maxLength(MAX_RULE_CONDITIONS))),
      })
      .check(
        z.superRefine((a, ctx) => {
          const count = conditionCount(a);
          if (count === 0) ctx.addIssue({ code: 'custom', path: [], message: 'must select by category, external_product_ids or external_variant_ids' });
          if (count > MAX_RULE_CONDITIONS) ctx.addIssue({ code: 'custom', path: [], message: `holds ${count} conditions; at most ${MAX_RULE_CONDITIONS}` });
        }),
      ),
    {
      id: 'RuleAppliesTo',
      description: 'A line matches when any condition matches. At most 100 conditions in total (a category counts as one, each id as one).',
    },
  ),
);
export type AppliesTo = z.output<typeof AppliesToSchema>;

export function conditionCount(a: AppliesTo): number {
  return (a.category ? 1 : 0) + (a.external_product_ids?.length ?? 0) + (a.external_variant_ids?.length ?? 0);
}

const quantityBounds = () =>
  z.strictObject({ min_quantity: z.optional(integer(1)), max_quantity: z.optional(integer(1)) }).check(
    z.superRefine((a, ctx) => {
      if (a.min_quantity === undefined && a.max_quantity === undefined)
        ctx.addIssue({ code: 'custom', path: [], message: 'needs min_quantity or max_quantity' });
      if (a.min_quantity !== undefined && a.max_quantity !== undefined && a.min_quantity > a.max_quantity) {
        ctx.addIssue({ code: 'custom', path: ['max_quantity'], message: 'must not be less than min_quantity' });
      }
    }),
  );

const priceBounds = () =>
  z.strictObject({ currency: CurrencyCode, min_price: z.optional(MoneyAmount), max_price: z.optional(MoneyAmount) }).check(
    z.superRefine((a, ctx) => {
      if (a.min_price === undefined && a.max_price === undefined) ctx.addIssue({ code: 'custom', path: [], message: 'needs min_price or max_price' });
      if (a.min_price !== undefined) checkMoney(ctx, a.min_price, a.currency, ['min_price']);
      if (a.max_price !== undefined) checkMoney(ctx, a.max_price, a.currency, ['max_price']);
    }),
  );

const actions = () =>
  ({
    replacement: z.strictObject({
      replacement_variant: meta(ExternalId, { description: 'Offered instead of a matching variant that is archived or unavailable' }),
    }),
    upsell: z.strictObject({
      suggest_variant: meta(ExternalId, { description: 'Offered instead of the matching line' }),
      max_quantity: meta(z.optional(integer(1)), {
        description: 'The most of the suggested variant offered per line; the line keeps its quantity when it is lower',
      }),
    }),
    cross_sell: z.strictObject({
      suggest_variant: meta(ExternalId, { description: 'Offered in addition to the matching line' }),
      quantity: z._default(integer(1), 1),
    }),
    quantity_constraint: quantityBounds(),
    price_constraint: priceBounds(),
  }) as const;

const common = () => ({
  priority: meta(z._default(integer(-1000, 1000), 0), { description: 'Higher applies first' }),
  enabled: z._default(z.boolean(), true),
  applies_to: AppliesToSchema,
  source_version: SourceVersion,
});

/** The five rule types, each with its own action: built as one, the first time a parse reaches it. */
export const RuleInputSchema = builtOnFirstUse(() => {
  const action = actions();
  const shared = common();
  return meta(
    z.discriminatedUnion('rule_type', [
      z.strictObject({ rule_type: z.literal('replacement'), action: action.replacement, ...shared }),
      z.strictObject({ rule_type: z.literal('upsell'), action: action.upsell, ...shared }),
      z.strictObject({ rule_type: z.literal('cross_sell'), action: action.cross_sell, ...shared }),
      z.strictObject({ rule_type: z.literal('quantity_constraint'), action: action.quantity_constraint, ...shared }),
      z.strictObject({ rule_type: z.literal('price_constraint'), action: action.price_constraint, ...shared }),
    ]),
    { id: 'SalesRuleInput' },
  );
});
export type RuleInput = z.output<typeof RuleInputSchema>;

export const SalesRuleSchema = answerSchema(() =>
  meta(
    z.object({
      external_rule_id: z.string(),
      rule_type: z.enum(RULE_TYPES),
      priority: integer(),
      enabled: z.boolean(),
      status: z.enum(['active', 'archived']),
      applies_to: AppliesToSchema,
      action: z.record(z.string(), z.unknown()),
      source_version: z.string(),
      archived_at: z.nullable(UtcTime),
      created_at: UtcTime,
      updated_at: UtcTime,
    }),
    { id: 'SalesRule' },
  ),
);
export type SalesRule = z.output<typeof SalesRuleSchema>;

export const SalesRuleSummarySchema = answerSchema(() =>
  meta(z.object({ external_rule_id: z.string(), rule_type: z.enum(RULE_TYPES), enabled: z.boolean(), priority: integer(), updated_at: UtcTime }), {
    id: 'SalesRuleSummary',
  }),
);

export type SalesRuleSummary = z.output<typeof SalesRuleSummarySchema>;

export const RuleUpsertResultSchema = answerSchema(() =>
  meta(z.object({ external_rule_id: z.string(), outcome: z.enum(['upserted', 'unchanged']), enabled: z.boolean() }), { id: 'SalesRuleUpsertResult' }),
);

/** The rule list's own filters (with `limit` and `cursor`: `listQuery`). */
export const ruleListFilters = () => z.strictObject({ enabled: z.optional(BooleanQuery) });
