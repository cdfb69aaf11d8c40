/**
 * Qualification (contract-decisions section 6) as one pure function: given what the table
 * holds about the customer, the variants and the rules, is this order callable, and with
 * which replacement lines? Failures name the first reason and the line it concerns.
 */

import type { ResolvedVariant } from '../catalog/variant-index.ts';
import { compareDecimals, parseDecimal } from '../money/decimal.ts';
import { applicableRules } from '../rules/applicable-rules.ts';
import type { SalesRule } from '../rules/rule-schemas.ts';
import type { OrderItem, OrderKind } from './order-schemas.ts';

export interface CustomerFacts {
  consent: 'granted' | 'withdrawn';
  anonymized: boolean;
}

export const REJECTION_REASONS = [
  'customer_not_found',
  'customer_anonymized',
  'consent_not_granted',
  'contact_permission_not_granted',
  'repurchase_intent_disabled',
  'unknown_variant',
  'variant_archived',
  'currency_mismatch',
  'quantity_out_of_range',
  'price_out_of_range',
  'destination_not_allowed',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

export interface Substitution {
  line: number;
  from: string;
  to: string;
  rule: string;
}

export type Qualification = { qualified: true; substitutions: Substitution[] } | { qualified: false; reason: RejectionReason; detail: string };

export interface QualificationInput {
  order: { order_kind: OrderKind; items: readonly OrderItem[]; contact_permission: { status: string } };
  customer: CustomerFacts | undefined;
  variants: ReadonlyMap<string, ResolvedVariant>;
  rules: readonly SalesRule[];
  repurchaseIntentEnabled: boolean;
  /** Whether the tenant may call the customer's number (destination.ts): a live tenant never dials any other. */
  destinationAllowed: boolean;
}

const reject = (reason: RejectionReason, detail: string): Qualification => ({ qualified: false, reason, detail });

export function qualify(input: QualificationInput): Qualification {
  const { order, customer, variants, rules } = input;
  if (!customer) return reject('customer_not_found', 'The customer of this order is not in the catalog of customers.');
  if (customer.anonymized) return reject('customer_anonymized', 'The customer was anonymized; no calls are made for them.');
  if (customer.consent !== 'granted') return reject('consent_not_granted', "The customer's contact consent is not granted.");
  if (order.contact_permission.status !== 'granted') return reject('contact_permission_not_granted', "The order's contact permission is not granted.");
  if (!input.destinationAllowed) {
    return reject(
      'destination_not_allowed',
      "The customer's number is not a mobile or fixed-line number of a country among the tenant's markets: it is not called.",
    );
  }
  if (order.order_kind === 'repurchase_intent' && !input.repurchaseIntentEnabled) {
    return reject('repurchase_intent_disabled', 'Repurchase intents are not enabled for this tenant.');
  }

  const applicable = applicableRules(order, variants, rules);
  const substitutions: Substitution[] = [];
  for (const [line, item] of order.items.entries()) {
    let variant = variants.get(item.external_variant_id);
    if (!variant || variant.archived) {
      const replacement = applicable.find(
        (a) => a.rule.rule_type === 'replacement' && a.lines.includes(line) && isUsable(variants.get(String(a.rule.action.replacement_variant))),
      );
      if (!replacement) {
        return variant
          ? reject('variant_archived', `items/${line}: variant ${item.external_variant_id} is archived and no replacement rule applies.`)
          : reject('unknown_variant', `items/${line}: variant ${item.external_variant_id} is not in the catalog.`);
      }
      const to = String(replacement.rule.action.replacement_variant);
      substitutions.push({ line, from: item.external_variant_id, to, rule: replacement.rule.external_rule_id });
      variant = variants.get(to)!;
    }
    if (variant.currency !== item.currency) {
      return reject(
        'currency_mismatch',
        `items/${line}: the order uses ${item.currency}, variant ${variant.external_variant_id} is priced in ${variant.currency}.`,
      );
    }
    const min = variant.min_quantity ?? 1;
    const max = variant.max_quantity ?? Number.POSITIVE_INFINITY;
    if (item.quantity < min || item.quantity > max) {
      return reject('quantity_out_of_range', `items/${line}: quantity ${item.quantity} is outside ${min}..${variant.max_quantity ?? '∞'} of the variant.`);
    }
    for (const { rule, lines } of applicable) {
      if (!lines.includes(line)) continue;
      const violation = constraintViolation(rule, item);
      if (violation) return reject(violation.reason, `items/${line}: ${violation.detail} (rule ${rule.external_rule_id}).`);
    }
  }
  return { qualified: true, substitutions };
}

const isUsable = (variant: ResolvedVariant | undefined) => variant !== undefined && !variant.archived;

function constraintViolation(rule: SalesRule, item: OrderItem): { reason: RejectionReason; detail: string } | undefined {
  const action = rule.action as Record<string, unknown>;
  if (rule.rule_type === 'quantity_constraint') {
    const min = (action.min_quantity as number | undefined) ?? 1;
    const max = (action.max_quantity as number | undefined) ?? Number.POSITIVE_INFINITY;
    if (item.quantity < min || item.quantity > max)
      return { reason: 'quantity_out_of_range', detail: `quantity ${item.quantity} is outside ${min}..${action.max_quantity ?? '∞'}` };
  }
  if (rule.rule_type === 'price_constraint' && action.currency === item.currency) {
    const price = parseDecimal(item.price);
    if (typeof action.min_price === 'string' && compareDecimals(price, parseDecimal(action.min_price)) < 0) {
      return { reason: 'price_out_of_range', detail: `price ${item.price} is below ${action.min_price}` };
    }
    if (typeof action.max_price === 'string' && compareDecimals(price, parseDecimal(action.max_price)) > 0) {
      return { reason: 'price_out_of_range', detail: `price ${item.price} is above ${action.max_price}` };
    }
  }
  return undefined;
}
