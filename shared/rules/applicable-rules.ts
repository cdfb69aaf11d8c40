/**
 * Which sales rules apply to which lines of an order: a pure function the qualification and
 * the call processing share, so both see the same rules in the same order.
 */
import type { AppliesTo, SalesRule } from './rule-schemas.ts';

export interface OrderLine {
  external_variant_id: string;
  quantity: number;
  price: string;
  currency: string;
}

/** What the catalog knows about a variant (undefined when it knows nothing). */
export interface CatalogEntry {
  external_product_id: string;
  category: string | null;
  archived: boolean;
}

export interface ApplicableRule {
  rule: SalesRule;
  /** Indexes into `order.items` of the lines the rule applies to. */
  lines: number[];
}

const inCategory = (category: string | null, prefix: string) => {
  if (category === null) return false;
  const p = prefix.replace(/\/+$/, '');
  return category === p || category.startsWith(`${p}/`);
};

export function ruleMatches(appliesTo: AppliesTo, variantId: string, entry: CatalogEntry | undefined): boolean {
  if (appliesTo.external_variant_ids?.includes(variantId)) return true;
  if (!entry) return false;
  if (appliesTo.external_product_ids?.includes(entry.external_product_id)) return true;
  return appliesTo.category !== undefined && inCategory(entry.category, appliesTo.category);
}

/**
 * The enabled, unarchived rules that match at least one line, highest priority first (ties
 * by rule id, so the order is stable), each with the lines it matches.
 */
export function applicableRules(
  order: { items: readonly OrderLine[] },
  catalog: ReadonlyMap<string, CatalogEntry>,
  rules: readonly SalesRule[],
): ApplicableRule[] {
  return rules
    .filter((rule) => rule.enabled && rule.status === 'active')
    .map((rule) => ({
      rule,
      lines: order.items.flatMap((line, index) =>
        ruleMatches(rule.applies_to, line.external_variant_id, catalog.get(line.external_variant_id)) ? [index] : [],
      ),
    }))
    .filter((applicable) => applicable.lines.length > 0)
    .sort((a, b) => b.rule.priority - a.rule.priority || (a.rule.external_rule_id < b.rule.external_rule_id ? -1 : 1));
}
