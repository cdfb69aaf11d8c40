/** Test-side helpers for orders: a ready tenant with catalog, customers and rules, and waiting for states. */
import { expect } from 'vitest';
import { eventsOf, mergedLog } from '#shared/orders/order-log.ts';
import { orderCollection, readOrderRecords } from '#shared/orders/order-records.ts';
import { readOrder } from '#shared/orders/order-store.ts';
import { keys } from '#shared/storage/keys.ts';
import { CALL_NOW_CONFIG, ORDER_TENANT_CATALOG, orderReaching } from './order-fixtures.ts';
import { call, newTenant, type TestKey } from './stack.ts';

export { CALL_NOW_CONFIG, customerBody, orderBody, wholeHistory } from './order-fixtures.ts';

/** A tenant with coffee beans (and the 1 kg bag an upsell offers). */
export async function orderTenant(config: unknown = CALL_NOW_CONFIG): Promise<TestKey> {
  const key = await newTenant({ config });
  const res = await call(key, 'POST', '/products/batch', { body: ORDER_TENANT_CATALOG });
  expect(res.body.rejected).toBe(0);
  return key;
}

/** Polls the order until `done` holds (the pipeline is asynchronous), failing after `timeoutMs`. */
export const waitForOrder = (key: TestKey, id: string, done: (order: any) => boolean, timeoutMs = 60_000): Promise<any> =>
  orderReaching(() => call(key, 'GET', `/orders/${id}`), done, timeoutMs);

export const isFinalOrder = (o: { processing_state: string }) => ['completed', 'cancelled', 'rejected'].includes(o.processing_state);

/** The types of every event an order has: those in its log (as its stream records publish them), then its own event items (a write-back's failure). */
export async function orderEventTypes(tenant: string, id: string): Promise<string[]> {
  const order = (await readOrder(tenant, id, true))!;
  const records = await readOrderRecords(order.pk, { history: { after: 0, through: order.revision } });
  const items = await orderCollection<{ event_type: string }>(keys.order(tenant, id).pk, 'EVENT#');
  return [...eventsOf(order, mergedLog(records.history, order.log), records), ...items.items].map((e) => e.event_type);
}
