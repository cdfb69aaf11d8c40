/**
 * The call scheduler's sweep: orders whose contact time has come (or whose call seems stuck)
 * are advanced, highest priority first. On AWS it runs every minute; the local runtime runs
 * it every quarter second so retries of the sandbox dialer happen at their delay.
 */
import { dueItems } from '../storage/due-index.ts';
import { DUE_INDEXES } from '../storage/keys.ts';
import { mapWithConcurrency } from '../async/concurrency.ts';

interface DueOrder extends Record<string, unknown> {
  tenant: string;
  external_order_id: string;
  priority: number;
  gsi2sk: string;
}

export async function sweepDueOrders(now: Date, advance: (tenant: string, id: string) => Promise<void>): Promise<number> {
  const due: DueOrder[] = [];
  for await (const entry of dueItems<DueOrder>(DUE_INDEXES.orders, now, 'tenant, external_order_id, priority, gsi2sk')) due.push(entry);
  due.sort((a, b) => b.priority - a.priority || (a.gsi2sk < b.gsi2sk ? -1 : 1));
  await mapWithConcurrency(due, 8, (o) => advance(o.tenant, o.external_order_id));
  return due.length;
}
