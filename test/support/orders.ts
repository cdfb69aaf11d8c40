/** Test-side helpers for orders: a ready tenant with catalog, customers and rules, and waiting for states. */
import { expect } from 'vitest';
import { call, newTenant, type TestKey } from './stack.ts';
import { eventually } from './eventually.ts';
import type { HistoryEntry } from '#shared/orders/order.ts';
import { eventsOf, mergedLog } from '#shared/orders/order-log.ts';
import { orderCollection, orderHistory, readOrderRecords } from '#shared/orders/order-records.ts';
import { readOrder } from '#shared/orders/order-store.ts';
import { keys } from '#shared/storage/keys.ts';

/** Calls every day, no quiet hours, write-back on: the sandbox scenarios run at once. */
export const CALL_NOW_CONFIG = {
  markets: [{ country: 'DE', locale_default: 'de-DE', calling_days: [1, 2, 3, 4, 5, 6, 7] }],
  quiet_hours: { timezone: 'Europe/Berlin', dont_call_hour_start: 0, dont_call_hour_end: 0 },
  writeback: { enabled: true },
  rate_limit: { requests_per_second: 1000, burst: 2000 },
};

export const customerBody = (phone: string, extra: Record<string, unknown> = {}) => ({
  phone,
  locale: 'de-DE',
  consent: { status: 'granted', proof: { source: 'checkout', reference: 'proof-1', collected_at: '2026-01-01T00:00:00Z' } },
  source_version: '1',
  ...extra,
});

export const orderBody = (id: string, customer: string, extra: Record<string, unknown> = {}) => ({
  order_kind: 'standard',
  external_order_id: id,
  external_customer_id: customer,
  items: [{ external_variant_id: 'beans', quantity: 2, price: '9.99', currency: 'EUR' }],
  contact_permission: { status: 'granted' },
  source_version: '1',
  ...extra,
});

/** A tenant with coffee beans (and the 1 kg bag an upsell offers). */
export async function orderTenant(config: unknown = CALL_NOW_CONFIG): Promise<TestKey> {
  const key = await newTenant({ config });
  const res = await call(key, 'POST', '/products/batch', {
    body: {
      products: [
        {
          external_product_id: 'coffee',
          title: 'Coffee beans',
          category: 'coffee/beans',
          source_version: '1',
          variants: [
            { external_variant_id: 'beans', price: '9.99', currency: 'EUR', max_quantity: 10 },
            { external_variant_id: 'beans-1kg', price: '24.50', currency: 'EUR' },
          ],
        },
        {
          external_product_id: 'mug',
          title: 'Mug',
          category: 'kitchen',
          source_version: '1',
          variants: [{ external_variant_id: 'mug', price: '5.00', currency: 'EUR' }],
        },
      ],
    },
  });
  expect(res.body.rejected).toBe(0);
  return key;
}

/** Polls the order until `done` holds (the pipeline is asynchronous), failing after `timeoutMs`. */
export async function waitForOrder(key: TestKey, id: string, done: (order: any) => boolean, timeoutMs = 60_000): Promise<any> {
  const reached = (res: { status: number; body: any }) => res.status === 200 && done(res.body);
  const res = await eventually(() => call(key, 'GET', `/orders/${id}`), reached, { timeoutMs, everyMs: 150 });
  if (!reached(res)) throw new Error(`order ${id} did not reach the expected state: ${res.text}`);
  return res.body;
}

export const isFinalOrder = (o: { processing_state: string }) => ['completed', 'cancelled', 'rejected'].includes(o.processing_state);

/** An order's whole history, read through the history reader `pageSize` entries at a time. */
export async function wholeHistory(orderPk: string, pageSize: number): Promise<HistoryEntry[]> {
  const entries: HistoryEntry[] = [];
  let after: string | undefined;
  do {
    const page = await orderHistory(orderPk, { limit: pageSize, ...(after ? { after } : {}) });
    entries.push(...page.entries);
    after = page.last;
  } while (after);
  return entries;
}

/** The types of every event an order has: those in its log (as its stream records publish them), then its own event items (a write-back's failure). */
export async function orderEventTypes(tenant: string, id: string): Promise<string[]> {
  const order = (await readOrder(tenant, id, true))!;
  const records = await readOrderRecords(order.pk, { history: true });
  const items = await orderCollection<{ event_type: string }>(keys.order(tenant, id).pk, 'EVENT#');
  return [...eventsOf(order, mergedLog(records.history, order.log), records), ...items.items].map((e) => e.event_type);
}
