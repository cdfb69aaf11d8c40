/**
 * The final order snapshot: lines after substitutions and accepted suggestions, and their
 * total in exact decimal arithmetic with the currency's minor units.
 */

import type { Snapshot } from '../calls/call-schemas.ts';
import type { ResolvedVariant } from '../catalog/variant-index.ts';
import { addDecimals, type Decimal, formatDecimal, minorUnits, multiplyDecimal, parseDecimal } from '../money/decimal.ts';
import { applicableRules } from '../rules/applicable-rules.ts';
import type { SalesRule } from '../rules/rule-schemas.ts';
import type { OrderItem } from './order-schemas.ts';
import type { Substitution } from './qualification.ts';

export interface SnapshotLine {
  external_variant_id: string;
  quantity: number;
  price: string;
}

export function total(lines: readonly SnapshotLine[], currency: string): string {
  const sum = lines.reduce<Decimal>((acc, l) => addDecimals(acc, multiplyDecimal(parseDecimal(l.price), BigInt(l.quantity))), { units: 0n, scale: 0 });
  return formatDecimal(sum, Math.max(minorUnits(currency) ?? 2, sum.scale));
}

/** The order's lines with replacement variants substituted (at the replacement's catalog price). */
export function effectiveLines(
  items: readonly OrderItem[],
  substitutions: readonly Substitution[],
  variants: ReadonlyMap<string, ResolvedVariant>,
): SnapshotLine[] {
  return items.map((item, line) => {
    const substitution = substitutions.find((s) => s.line === line);
    const replacement = substitution && variants.get(substitution.to);
    return replacement
      ? { external_variant_id: replacement.external_variant_id, quantity: item.quantity, price: replacement.price }
      : { external_variant_id: item.external_variant_id, quantity: item.quantity, price: item.price };
  });
}

/**
 * The customer accepts the first applicable upsell or cross-sell whose suggested variant is
 * in the catalog and priced in the order's currency (a snapshot never mixes currencies): an
 * upsell swaps the matching lines to it (at most `max_quantity` each), a cross-sell adds it.
 */
export function acceptFirstSuggestion(
  lines: readonly SnapshotLine[],
  variants: ReadonlyMap<string, ResolvedVariant>,
  rules: readonly SalesRule[],
  currency: string,
): { lines: SnapshotLine[]; rule: string; kind: 'replaces' | 'adds'; suggested: ResolvedVariant } | undefined {
  const order = { items: lines.map((l) => ({ ...l, currency: '' })) };
  for (const { rule, lines: matched } of applicableRules(order, variants, rules)) {
    if (rule.rule_type !== 'upsell' && rule.rule_type !== 'cross_sell') continue;
    const suggested = variants.get(String(rule.action.suggest_variant));
    if (!suggested || suggested.archived || suggested.currency !== currency) continue;
    if (rule.rule_type === 'upsell') {
      return {
        rule: rule.external_rule_id,
        kind: 'replaces',
        suggested,
        lines: lines.map((l, i) =>
          matched.includes(i)
            ? { external_variant_id: suggested.external_variant_id, quantity: upsellQuantity(l.quantity, rule.action.max_quantity), price: suggested.price }
            : l,
        ),
      };
    }
    const quantity = typeof rule.action.quantity === 'number' ? rule.action.quantity : 1;
    return {
      rule: rule.external_rule_id,
      kind: 'adds',
      suggested,
      lines: [...lines, { external_variant_id: suggested.external_variant_id, quantity, price: suggested.price }],
    };
  }
  return undefined;
}

const upsellQuantity = (quantity: number, max: unknown) => (typeof max === 'number' ? Math.min(quantity, max) : quantity);

export function snapshotOf(lines: readonly SnapshotLine[], currency: string, confirmed: boolean, reason: string | null): Snapshot {
  return { items: [...lines], currency, total: total(lines, currency), confirmed, reason };
}
