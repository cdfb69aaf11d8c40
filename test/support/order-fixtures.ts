/**
 * What order tests send and read, with no stack of their own: the tenant configuration, the
 * bodies, the catalog an order tenant starts with, and an order's whole history. Files on the
 * shared stack take them through `orders.ts`; a file on a runtime of its own imports them here.
 */
import type { HistoryEntry } from '#shared/orders/order.ts';
import { orderHistory } from '#shared/orders/order-records.ts';
import { eventually } from './eventually.ts';

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

/** The catalog of an order tenant: coffee beans (and the 1 kg bag an upsell offers), and a mug. */
export const ORDER_TENANT_CATALOG = {
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
};

/**
 * Polls an order through `get` (a signed GET of it, over whichever stack) until `done` holds:
 * the pipeline is asynchronous. Fails after `timeoutMs`, showing the order as last read.
 */
export async function orderReaching(get: () => Promise<{ status: number; body: any }>, done: (order: any) => boolean, timeoutMs: number): Promise<any> {
  const reached = (res: { status: number; body: any }) => res.status === 200 && done(res.body);
  const res = await eventually(get, reached, { timeoutMs, everyMs: 150 });
  if (!reached(res)) throw new Error(`the order did not reach the expected state: ${JSON.stringify(res.body)}`);
  return res.body;
}

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
