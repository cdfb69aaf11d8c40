/**
 * `orders`: 1,000 orders from POST to completed through the local stack (gateway, stream
 * processor, call scheduler, sandbox dialer with zero delays): throughput, time from POST to
 * result_ready, and DynamoDB units per order beside the minimum the data model needs.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { billFromImages, capacityByKind, capacityTotals, resetCapacityTotals } from '#local/metering/capacity-meter.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { startReceiver } from '#test/support/receiver.ts';
import { benchTenant, send } from '../lib/client.ts';
import { type Figure, figure } from '../lib/figures.ts';
import { percentile, progress } from '../lib/measure.ts';
import { beansOrder, EVENTS_PER_ORDER, prepareOrdering } from '../lib/ordering.ts';

const ORDERS = 1000;
const IN_FLIGHT = 20;
/** Orders whose writes are billed from the items' images (slower: two reads per item written), without and with a subscription. */
const METERED_ORDERS = 200;
const ORDER_EVENT_TYPES = ['commerce.order.status_changed.v1', 'commerce.call.attempt_completed.v1', 'commerce.order.result_ready.v1'];

type Key = Awaited<ReturnType<typeof benchTenant>>;

/** POSTs the orders, IN_FLIGHT at a time; when each was posted. */
async function postOrders(baseUrl: string, key: Key, count = ORDERS): Promise<Map<string, number>> {
  const postedAt = new Map<string, number>();
  const start = performance.now();
  await mapWithConcurrency(
    Array.from({ length: count }, (_, i) => `o-${i}`),
    IN_FLIGHT,
    async (id, i) => {
      postedAt.set(id, Date.now());
      const res = await send(baseUrl, key, 'POST', '/orders', beansOrder(id, { quantity: 1 + (i % 3) }));
      if (res.status !== 201) throw new Error(`POST /orders answered ${res.status}`);
    },
  );
  progress(`posted ${count} orders in ${((performance.now() - start) / 1000).toFixed(1)} s; waiting for results`);
  return postedAt;
}

/** Polls the result items until every order has one; when each completed. */
async function awaitResults(key: Key, postedAt: Map<string, number>): Promise<Map<string, number>> {
  const completedAt = new Map<string, number>();
  const deadline = Date.now() + 10 * 60_000;
  while (completedAt.size < postedAt.size) {
    if (Date.now() > deadline) throw new Error(`only ${completedAt.size} of ${postedAt.size} orders completed`);
    const pending = [...postedAt.keys()].filter((id) => !completedAt.has(id));
    await mapWithConcurrency(pending, 16, async (id) => {
      const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.orderResult(keys.order(key.tenant, id).pk) }));
      if (Item) completedAt.set(id, Date.parse(String(Item.completed_at)));
    });
    progress(`${completedAt.size}/${postedAt.size} completed`);
    if (completedAt.size < postedAt.size) await new Promise((r) => setTimeout(r, 1000));
  }
  return completedAt;
}

/** The catalog's own stream work (the variant index) is done before an order is counted. */
const settle = () => new Promise((r) => setTimeout(r, 3000));

/** Where an order's units go, by kind of call: the trace the figures and the model are checked against. */
function printTrace(orders: number) {
  for (const [kind, k] of capacityByKind().slice(0, 25)) {
    const local = [
      `table ${(k.localTableWriteUnits / orders).toFixed(2)}`,
      ...Object.entries(k.localIndexWriteUnits).map(([i, u]) => `${i} ${(u / orders).toFixed(2)}`),
    ];
    const largest = k.largestItemBytes ? `, largest item ${k.largestItemBytes} B` : '';
    progress(
      `  ${kind}: ${(k.calls / orders).toFixed(2)} calls, ${(k.billedWriteUnits / orders).toFixed(2)} WCU billed (Local: ${local.join(', ')}) per order${largest}`,
    );
  }
}

/** METERED_ORDERS orders billed from the items' images; with a subscription, until every event was delivered. */
async function meteredOrders(baseUrl: string, subscribed: boolean) {
  const key = await benchTenant(subscribed ? 'bench-orders-subscribed' : 'bench-orders-metered');
  await prepareOrdering(baseUrl, key);
  const receiver = subscribed ? await startReceiver(() => 'ok') : undefined;
  try {
    if (receiver) await send(baseUrl, key, 'PUT', '/webhook-subscription', { url: receiver.url, event_types: ORDER_EVENT_TYPES });
    await settle();
    billFromImages(true);
    resetCapacityTotals();
    await awaitResults(key, await postOrders(baseUrl, key, METERED_ORDERS));
    const deadline = Date.now() + 3 * 60_000;
    while (receiver && receiver.received.length < METERED_ORDERS * EVENTS_PER_ORDER && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    // The last deliveries' records are written after their POST was answered.
    if (receiver) await settle();
    progress(`billed from the items' images, ${subscribed ? 'with a subscription to every order event' : 'no subscription'}:`);
    printTrace(METERED_ORDERS);
    return capacityTotals();
  } finally {
    billFromImages(false);
    await receiver?.close();
  }
}

export async function run(baseUrl: string): Promise<Figure[]> {
  const key = await benchTenant('bench-orders');
  await prepareOrdering(baseUrl, key);
  await settle();
  resetCapacityTotals();
  const postedAt = await postOrders(baseUrl, key);
  const completedAt = await awaitResults(key, postedAt);
  const last = Math.max(...completedAt.values());
  const elapsedSeconds = (last - Math.min(...postedAt.values())) / 1000;
  const latencies = [...completedAt].map(([id, at]) => at - postedAt.get(id)!).sort((a, b) => a - b);
  // The polling reads above are the benchmark's own; subtract them from the units per order.
  const units = capacityTotals();
  printTrace(ORDERS);
  const billed = await meteredOrders(baseUrl, false);
  const subscribed = await meteredOrders(baseUrl, true);
  return [
    figure({
      suite: 'orders',
      name: 'orders per second, POST to completed (1,000 orders, 20 POSTs in flight)',
      value: ORDERS / elapsedSeconds,
      unit: 'orders/s',
      note: 'POSTs arrive faster than DynamoDB Local lets the pipeline complete them, so the latencies below are mostly queueing',
    }),
    figure({ suite: 'orders', name: 'DynamoDB calls per order (API and pipeline)', value: units.calls / ORDERS, unit: 'calls' }),
    figure({ suite: 'orders', name: 'POST to result_ready, p50', value: percentile(latencies, 50), unit: 'ms' }),
    figure({ suite: 'orders', name: 'POST to result_ready, p99', value: percentile(latencies, 99), unit: 'ms' }),
    ...unitFigures(units, billed, subscribed),
  ];
}

type Totals = ReturnType<typeof capacityTotals>;

function unitFigures(units: Totals, billed: Totals, subscribed: Totals): Figure[] {
  const perOrder = (t: Totals) => t.billedWriteUnits / METERED_ORDERS;
  return [
    figure({
      suite: 'orders',
      name: 'write units per order, as DynamoDB bills them',
      value: perOrder(billed),
      unit: 'WCU',
      floor: { value: FAIR_FLOOR_WRITE_UNITS, label: 'the itemised fair floor: what the contract needs written, each once, outside transactions (see note)' },
      target: { ratio: 1.5, direction: 'at_most' },
      note: `fair floor: ${FAIR_FLOOR_ITEMS} = ${FAIR_FLOOR_WRITE_UNITS} WCU; billed by DynamoDB's rules from each written item's images before and after (${METERED_ORDERS} orders; local/metering/billing.ts): a transaction's table writes doubled, its index writes not, an index key's move two writes, a refused conditional write its item's size (${(billed.failedConditionalWrites / METERED_ORDERS).toFixed(1)} per order)`,
    }),
    figure({
      suite: 'orders',
      name: 'write units per order with a subscription to every order event, deliveries included, as DynamoDB bills them',
      value: perOrder(subscribed),
      unit: 'WCU',
      floor: {
        value: FAIR_FLOOR_WRITE_UNITS + EVENTS_PER_ORDER * FAIR_DELIVERY_WRITE_UNITS,
        label: `the order's fair floor and ${EVENTS_PER_ORDER} deliveries at theirs (${FAIR_DELIVERY_ITEMS} = ${FAIR_DELIVERY_WRITE_UNITS} WCU each)`,
      },
      target: { ratio: 1.3, direction: 'at_most' },
    }),
    figure({
      suite: 'orders',
      name: 'write units per order, as DynamoDB Local reports them',
      value: units.writeUnits / ORDERS,
      unit: 'WCU',
      note: "Local bills a transaction's items and index moves otherwise than DynamoDB and reports nothing for a refused condition: shown beside the billed figure, never compared",
    }),
    figure({
      suite: 'orders',
      name: 'DynamoDB calls per order',
      value: units.calls / ORDERS,
      unit: 'calls',
      floor: {
        value: MINIMUM_CALLS,
        label: 'each state change, the attempt and the result written once; nonce, rate window and idempotency record; customer, variant and product read once',
      },
    }),
    figure({
      suite: 'orders',
      name: "read units per order (includes this benchmark's result polling)",
      value: units.readUnits / ORDERS,
      unit: 'RCU',
      floor: { value: MINIMUM_READ_UNITS, label: 'authentication, customer, variant and product reads once per order' },
    }),
  ];
}

/**
 * What one order must write at DynamoDB's prices, each item once and outside transactions, for
 * what the contract promises: an order item under 1 KB through its five states, the call
 * attempt and the result, the customer link erasure relies on, the facet-index moves the state
 * filter and the scheduler read, its list entry, the due entry armed and removed, and the
 * request's records (nonce, rate window, idempotency claim and answer).
 */
const FAIR_FLOOR = {
  'state writes': 5,
  attempt: 1,
  result: 1,
  'customer link': 1,
  'facet-index writes': 9,
  'list entry': 1,
  'due entry armed and removed': 2,
  'request records': 4,
} as const;
/**
 * What one delivered event must write: the delivery with its payload (under 2 KB), its outcome
 * written once, the attempt's record, its list entry, its status-index entry in and out, and
 * its due entry armed and removed.
 */
const FAIR_DELIVERY = {
  'delivery with its payload': 2,
  outcome: 2,
  attempt: 1,
  'list entry': 1,
  'status index in and out': 2,
  'due entry armed and removed': 2,
} as const;
const FAIR_DELIVERY_WRITE_UNITS = Object.values(FAIR_DELIVERY).reduce((sum, wcu) => sum + wcu, 0);
const FAIR_DELIVERY_ITEMS = Object.entries(FAIR_DELIVERY)
  .map(([what, wcu]) => `${what} ${wcu}`)
  .join(' + ');
const FAIR_FLOOR_WRITE_UNITS = Object.values(FAIR_FLOOR).reduce((sum, wcu) => sum + wcu, 0);
const FAIR_FLOOR_ITEMS = Object.entries(FAIR_FLOOR)
  .map(([what, wcu]) => `${what} ${wcu}`)
  .join(' + ');
const MINIMUM_READ_UNITS = 3;
const MINIMUM_CALLS = 5 + 2 + 3 + 3;
