/**
 * What an order's call says: the dialog's input, made from the order, its effective lines, the
 * tenant's store name for the customer's market and the suggestion the customer may take.
 * Pure. The suggestion is the one `attemptOutcome` applies when the customer presses 3, so what
 * is offered is what is recorded.
 */
import { type DialogScript, dialogScript } from '../calls/dialog.ts';
import { storeNameFor } from '../tenants/tenant-config.ts';
import { marketOf } from './destination.ts';
import type { Facts } from './facts.ts';
import type { StoredOrder } from './order.ts';
import { acceptFirstSuggestion, type SnapshotLine, total } from './snapshot.ts';

export function callScript(order: StoredOrder, facts: Facts, lines: readonly SnapshotLine[]): DialogScript {
  const currency = order.items[0]!.currency;
  const market = marketOf(facts.config, facts.customer);
  const suggestion = facts.config.features_enabled.upsell ? acceptFirstSuggestion(lines, facts.variants, facts.rules, currency) : undefined;
  const titleOf = (variantId: string) => facts.variants.get(variantId)?.title ?? variantId;
  return dialogScript({
    storeName: storeNameFor(order.tenant, facts.config, market),
    orderedAt: order.created_at,
    timeZone: market?.timezone ?? facts.config.quiet_hours.timezone,
    locales: [facts.customer?.locale, market?.locale_default],
    currency,
    lines: lines.map((l) => ({ title: titleOf(l.external_variant_id), quantity: l.quantity, price: l.price })),
    total: total(lines, currency),
    offer: suggestion ? { title: titleOf(suggestion.suggested.external_variant_id), price: suggestion.suggested.price, kind: suggestion.kind } : undefined,
  });
}
