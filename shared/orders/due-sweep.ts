/**
 * The call scheduler's sweep: orders whose contact time has come (or whose call seems stuck)
 * are advanced. On AWS it runs every minute; the local runtime runs it every second so retries
 * of the sandbox dialer happen at their delay.
 *
 * One deployment serves every tenant, so the sweep shares itself out: `priority` orders a
 * tenant's own orders only, tenants are served in turn (the one waiting longest first), and
 * at most CALLS_PER_TENANT_PER_SWEEP of a tenant's orders are advanced per sweep. However
 * large one tenant's backlog and whatever its priorities, another tenant's due order is among
 * the first of the next sweep.
 */

import { mapWithConcurrency } from '../async/concurrency.ts';
import { METRIC } from '../observability/metric-names.ts';
import { countMetric } from '../observability/metrics.ts';
import { dueItems } from '../storage/due-index.ts';
import { DUE_INDEXES } from '../storage/keys.ts';

/** A tenant's share of one sweep; the rest of its due orders wait for the next. */
export const CALLS_PER_TENANT_PER_SWEEP = 25;

export interface DueOrder {
  tenant: string;
  external_order_id: string;
  priority: number;
  /** The due time (canonical UTC, so string order is time order). */
  gsi2sk: string;
}

const byOwnPriority = (a: DueOrder, b: DueOrder) => b.priority - a.priority || (a.gsi2sk < b.gsi2sk ? -1 : a.gsi2sk > b.gsi2sk ? 1 : 0);

/**
 * The sweep's work in the order it is started: round robin over tenants (the tenant whose
 * earliest due order has waited longest goes first), each tenant's orders by its own priority,
 * then due time, at most `perTenant` of each.
 */
export function fairTurns<T extends DueOrder>(due: readonly T[], perTenant = CALLS_PER_TENANT_PER_SWEEP): T[] {
  const byTenant = new Map<string, T[]>();
  for (const order of due) byTenant.set(order.tenant, [...(byTenant.get(order.tenant) ?? []), order]);
  const earliest = (orders: T[]) => orders.reduce((min, o) => (o.gsi2sk < min ? o.gsi2sk : min), orders[0]!.gsi2sk);
  const queues = [...byTenant.values()]
    .sort((a, b) => (earliest(a) < earliest(b) ? -1 : earliest(a) > earliest(b) ? 1 : 0))
    .map((orders) => orders.sort(byOwnPriority).slice(0, perTenant));
  const turns: T[] = [];
  for (let round = 0; round < perTenant; round++) for (const queue of queues) if (queue[round]) turns.push(queue[round]!);
  return turns;
}

/** The sweep's interval on AWS: an order due for longer than this should have been started by the last sweep. */
export const SWEEP_INTERVAL_SECONDS = 60;

/** The due orders this sweep leaves waiting though they were due before the last sweep ran. */
export function overdueLeft(due: readonly DueOrder[], started: readonly DueOrder[], now: Date): number {
  const before = new Date(now.getTime() - SWEEP_INTERVAL_SECONDS * 1000).toISOString();
  return due.filter((o) => o.gsi2sk < before).length - started.filter((o) => o.gsi2sk < before).length;
}

export async function sweepDueOrders(now: Date, advance: (tenant: string, id: string) => Promise<void>): Promise<number> {
  const due: DueOrder[] = [];
  for await (const entry of dueItems<DueOrder & Record<string, unknown>>(DUE_INDEXES.orders, now, 'tenant, external_order_id, priority, gsi2sk'))
    due.push(entry);
  const turns = fairTurns(due);
  // Every sweep reports it, zero included, so the alarm sees a backlog clear as well as grow.
  countMetric(METRIC.overdueCalls, {}, overdueLeft(due, turns, now));
  await mapWithConcurrency(turns, 8, (o) => advance(o.tenant, o.external_order_id));
  return turns.length;
}
