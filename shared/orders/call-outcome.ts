/** What a finished attempt means for an order: its result, or when to call again. Pure. */

import type { OrderState } from '../api/order-states.ts';
import type { AttemptReport } from '../calls/call-platform.ts';
import type { BusinessOutcome, OrderResult } from '../calls/call-schemas.ts';
import { retryDelaySecondsOf } from '../tenants/tenant-config.ts';
import type { Facts } from './facts.ts';
import type { StoredOrder } from './order.ts';
import { callingWindow, nextContactAt } from './scheduler.ts';
import { acceptFirstSuggestion, effectiveLines, snapshotOf } from './snapshot.ts';

const resultView = (
  order: StoredOrder,
  disposition: AttemptReport['call_disposition'],
  outcome: BusinessOutcome,
  snapshot: OrderResult['final_order_snapshot'],
  rules: string[],
  at: string,
): OrderResult => ({
  external_order_id: order.external_order_id,
  processing_state: 'completed',
  call_disposition: disposition,
  business_outcome: outcome,
  final_order_snapshot: snapshot,
  applied_rules: rules,
  completed_at: at,
});

/**
 * Attempts lost by the platform an order may have before it ends `unreachable` anyway (with the
 * last call_disposition `failed`, so a partner can tell): a dialer that never places the call
 * must not keep an order open for ever.
 */
export const MAX_LOST_ATTEMPTS = 5;

/** The attempt count after `report`: the attempts that reached the customer, and those the platform lost. */
export function attemptCounts(order: StoredOrder, report: AttemptReport): { counted: number; lost: number } {
  const lost = (order.lost_attempts ?? 0) + (report.call_disposition === 'failed' ? 1 : 0);
  return { counted: order.call_attempts - lost, lost };
}

/**
 * What a finished attempt means for the order: its result (it completes), or when to call
 * again. A `failed` attempt never reached the customer: a partner reads `unreachable` as "the
 * customer did not answer", so it does not count toward `max_call_attempts`.
 */
export function attemptOutcome(
  order: StoredOrder,
  report: AttemptReport,
  facts: Facts,
  now: Date,
  retryDelayOverride: number | undefined,
): { to: OrderState; result?: OrderResult; nextContact: string | null } {
  const at = now.toISOString();
  const lines = effectiveLines(order.items, order.substitutions ?? [], facts.variants);
  const currency = order.items[0]!.currency;
  const completed = (
    disposition: AttemptReport['call_disposition'],
    outcome: BusinessOutcome,
    snapshot: OrderResult['final_order_snapshot'],
    rules: string[] = [],
  ) => ({
    to: 'completed' as const,
    result: resultView(order, disposition, outcome, snapshot, rules, at),
    nextContact: null,
  });
  // The platform refused the destination: no call can reach this customer there (contract-decisions section 11).
  if (report.refused) return completed('failed', 'unreachable', snapshotOf(lines, currency, false, report.refused));
  // An answered call with no decision (the customer said nothing, or pressed no key the
  // dialog knows, twice) reached the customer: it counts as an attempt and is called again.
  if (report.call_disposition === 'answered' && report.decision) {
    if (report.decision === 'declined') return completed('answered', 'declined', snapshotOf(lines, currency, false, 'customer_declined'));
    const accepted =
      report.decision === 'modified' && facts.config.features_enabled.upsell ? acceptFirstSuggestion(lines, facts.variants, facts.rules, currency) : undefined;
    if (accepted) return completed('answered', 'modified', snapshotOf(accepted.lines, currency, true, null), [accepted.rule]);
    return completed('answered', 'confirmed', snapshotOf(lines, currency, true, null));
  }
  if (report.call_disposition === 'invalid_number') return completed('invalid_number', 'invalid_number', snapshotOf(lines, currency, false, 'invalid_number'));
  const { counted, lost } = attemptCounts(order, report);
  if (counted >= facts.config.max_call_attempts || lost >= MAX_LOST_ATTEMPTS) {
    // The customer heard the order on the last attempt but never chose: reached, yet no decision.
    const reason = report.call_disposition === 'answered' ? 'no_decision' : 'unreachable';
    return completed(report.call_disposition, 'unreachable', snapshotOf(lines, currency, false, reason));
  }
  const window = callingWindow(facts.config, facts.customer);
  const earliest = new Date(now.getTime() + (retryDelayOverride ?? retryDelaySecondsOf(facts.config)) * 1000);
  return { to: 'scheduled', nextContact: (window ? nextContactAt(earliest, window) : earliest).toISOString() };
}
