/**
 * `model`: 10,000 tenants at their peak, no servers. Tenant order rates follow a Zipf law
 * (the largest at 200 orders/s), catalogs likewise (the largest importing 1,000 products/s),
 * and every order makes the writes the pipeline makes, each on the partition the real key
 * builders (`shared/storage/keys.ts`) give it. Reported: the hottest partition's writes and
 * reads per second against DynamoDB's per-partition limits, the table's partitions (so the
 * stream's shards and the stream processor's concurrency), SQS throughput, and the day's
 * cost at list prices with a REST API and, beside it, an HTTP API.
 *
 * The per-order write plan is an estimate of item sizes (stated below); its total is compared
 * with the write units per order the `orders` suite measured, when bench/results holds it.
 */
import { readFileSync } from 'node:fs';
import { SENDER_INSTANCES } from '#shared/api/limits.ts';
import { RATE_COUNTER_WRITES_PER_SECOND } from '#shared/auth/dynamodb-adapters.ts';
import { keys, LIST_SHARDS, shardOf } from '#shared/storage/keys.ts';
import { ENDPOINT_SLOTS, UNGUARDED_PER_INSTANCE } from '#shared/webhooks/endpoint-guard.ts';
import { callMinutes } from '../lib/call-minutes.ts';
import { type Figure, figure } from '../lib/figures.ts';
import { EVENTS_PER_ORDER } from '../lib/ordering.ts';
import { PRICES } from '../lib/prices.ts';

const TENANTS = 10_000;
const ZIPF_EXPONENT = 1.1;
const TOP_ORDERS_PER_SECOND = 200;
const TOP_PRODUCTS_PER_SECOND = 1_000;
/** A day holds this many peak-seconds of traffic (peak three times the day's average). */
const DAY_PEAK_SECONDS = 86_400 / 3;
const API_REQUESTS_PER_ORDER = 4; // POST /orders, then on average three reads (order, result, calls)
const FIRST_DELIVERY_FAILS = 0.1; // webhook retries: one delivery in ten needs a second attempt
const FAST_ANSWER_MS = 100; // a healthy receiver's answer
const PARTITION_WCU = 1_000;
const PARTITION_RCU = 3_000;

/** One kind of write an order makes: how many, how many units each, and the partition it lands on. */
interface Write {
  what: string;
  count: number;
  units: number;
  partition: (tenant: string, order: string, delivery: string) => string;
  /** Tenant-scoped partitions share load only within a tenant; global ones across all tenants. */
  scope: 'order' | 'tenant' | 'global';
}

/**
 * One order's writes as DynamoDB bills them (local/metering/billing.ts), write by write as the
 * code makes them and the orders suite's trace shows them: the customer's link and the call
 * attempt written ahead of the order; the creation, the qualified and scheduled changes
 * written once, `in_call` and the dial's claim, each one conditional put of the order with its
 * events in its log; the completion in a transaction with the result (its table writes
 * doubled, its index writes not); the order's one publication marker put with its final write
 * and removed once its events are out; the request's records. A result to write back (a
 * tenant with write-back on) adds its own stream-work entry and its settlement, not counted
 * here (the suites' tenants have it off). Sizes: the order item just under 1 KB with its log,
 * attempt, result and index entries under 1 KB, a delivery's payload and its record under 1 KB each.
 */
const TX = 2; // a transaction bills each 1 KB of a table write twice
const orderPk = (t: string, o: string) => keys.order(t, o).pk;
const ORDER_PLAN: Write[] = [
  { what: "order item: four changes and the dial's claim, each one conditional put", count: 5, units: 1, partition: orderPk, scope: 'order' },
  { what: 'order item and its result: the completion, one transaction', count: 2, units: TX, partition: orderPk, scope: 'order' },
  { what: 'call attempt, written ahead of the order', count: 1, units: 1, partition: orderPk, scope: 'order' },
  {
    what: "order's link from its customer, written ahead of the order",
    count: 1,
    units: 1,
    partition: (t, o) => keys.customerOrder(t, `c-${o}`, o).pk,
    scope: 'order',
  },
  {
    what: 'orders list index (gsi1): the entry written with each change',
    count: 4,
    units: 1,
    partition: (t, o) => keys.listEntry(t, 'ORDERS', o, '').gsi1pk,
    scope: 'tenant',
  },
  // Put with the order, then out of one state's partition and into the next at each of three
  // changes: seven writes, each state's partitions taking its entry in and out.
  ...(
    [
      ['received', 2],
      ['scheduled', 2],
      ['in_call', 2],
      ['completed', 1],
    ] as const
  ).map(
    ([state, count]): Write => ({
      what: `orders state index (gsi3): ${state}, entries in${count === 2 ? ' and out' : ''}`,
      count,
      units: 1,
      partition: (t, o) => keys.facetEntry(t, 'ORDERS', o, '', [state]).gsi3pk,
      scope: 'tenant',
    }),
  ),
  {
    what: 'order due index (gsi2): armed, moved twice (out and in), removed',
    count: 6,
    units: 1,
    partition: (t, o) => keys.orderDue({ pk: orderPk(t, o), tenant: t, priority: 0 }, new Date(0)).gsi2pk,
    scope: 'global',
  },
  {
    // The order's publication marker, put with its final write and removed once its events are out (order-store.ts).
    what: "stream-work entry (gsi2): the order's publication marker, put, then removed by an update of the order (table and index)",
    count: 3,
    units: 1,
    partition: (t, o) => keys.streamDue(orderPk(t, o), '').gsi2pk,
    scope: 'global',
  },
  {
    // The trace: the payload put once; the record (under 1 KB) put, claimed and its outcome put; a retry claims and records again.
    what: 'deliveries: the payload put once; the record put, claimed (its lease) and its outcome put, under 1 KB each',
    count: EVENTS_PER_ORDER * (4 + 2 * FIRST_DELIVERY_FAILS),
    units: 1,
    partition: (t, _o, d) => keys.delivery(t, d).pk,
    scope: 'order',
  },
  {
    what: 'deliveries list index (gsi1): the entry put, rewritten with each outcome',
    count: EVENTS_PER_ORDER * (2 + FIRST_DELIVERY_FAILS),
    units: 1,
    partition: (t, _o, d) => keys.listEntry(t, 'DELIVERIES', d, '').gsi1pk,
    scope: 'tenant',
  },
  {
    // A success removes the queued entry; a retry moves it to retrying (two writes), and its success removes it there.
    what: 'deliveries status index (gsi3): queued in and out, a retry in and out of retrying',
    count: EVENTS_PER_ORDER * (2 + 2 * FIRST_DELIVERY_FAILS),
    units: 1,
    partition: (t, _o, d) => keys.facetEntry(t, 'DELIVERIES', d, '', ['queued']).gsi3pk,
    scope: 'tenant',
  },
  {
    // Made from a stream record, a delivery has a due entry only if its send failed (rare, not counted) or for a retry's wait.
    what: "deliveries due index (gsi2): a retry's due entry armed and removed",
    count: EVENTS_PER_ORDER * 2 * FIRST_DELIVERY_FAILS,
    units: 1,
    partition: (t, _o, d) => keys.due(keys.delivery(t, d).pk, '').gsi2pk,
    scope: 'global',
  },
  {
    what: 'delivery attempts',
    count: EVENTS_PER_ORDER * (1 + FIRST_DELIVERY_FAILS),
    units: 1,
    partition: (t, _o, d) => keys.delivery(t, d).pk,
    scope: 'order',
  },
  {
    // A fast endpoint's attempts take no slot (endpoint-guard.ts): a healthy delivery writes nothing
    // on the subscription item. A failed attempt counts itself and starts the failing clock in one
    // write, and the success after it clears both in one. (Each sender instance renews the fast
    // mark once every 30 s: 40 instances, under 2 writes a second, left out.)
    what: "endpoint breaker on the tenant's subscription: a failure counted, then cleared",
    count: EVENTS_PER_ORDER * 2 * FIRST_DELIVERY_FAILS,
    units: 1,
    partition: (t) => keys.webhookSubscription(t).pk,
    scope: 'tenant',
  },
  {
    what: 'request rate window counters',
    count: API_REQUESTS_PER_ORDER,
    units: 1,
    // The largest tenant's key is allowed its 800 requests/s: counted on ceil(800 / 200) counters.
    partition: (t, o) =>
      keys.rateWindow(t, 'key', 0, shardOf(o, Math.ceil((TOP_ORDERS_PER_SECOND * API_REQUESTS_PER_ORDER) / RATE_COUNTER_WRITES_PER_SECOND))).pk,
    scope: 'tenant',
  },
  { what: 'nonces and idempotency records', count: API_REQUESTS_PER_ORDER + 2, units: 1, partition: (t, o) => keys.nonce(t, 'key', o).pk, scope: 'order' },
];
/** The orders suite's orders make only their POST: its nonce, rate window, idempotency claim and answer. */
const POST_RECORDS = 4;
const isDelivery = (w: Write) => w.what.startsWith('deliver') || w.what.startsWith('endpoint');
const isRequest = (w: Write) => w.what.startsWith('request') || w.what.startsWith('nonces');
const READ_UNITS_PER_ORDER = 10;
/** A batch reads each product's stored version before its put: one strongly consistent unit for a product under 4 KB. */
const READ_UNITS_PER_PRODUCT = 1;
/** Share of requests that read a list page, and the units a page reads from each list shard. */
const LIST_SHARE = 0.1;
const LIST_PAGE_RCU_PER_SHARD = 1;
/**
 * The largest tenant's partitions read most: a list shard of its orders, and its webhook
 * subscription item, which every delivery attempt reads (eventually consistent, under 4 KB: half a unit).
 */
const HOT_READS = [
  { what: "a list shard of the largest tenant's orders", rcuPerSecond: TOP_ORDERS_PER_SECOND * API_REQUESTS_PER_ORDER * LIST_SHARE * LIST_PAGE_RCU_PER_SHARD },
  {
    what: "the largest tenant's webhook subscription, read by every attempt",
    rcuPerSecond: TOP_ORDERS_PER_SECOND * EVENTS_PER_ORDER * (1 + FIRST_DELIVERY_FAILS) * 0.5,
  },
];
const hottestRead = [...HOT_READS].sort((a, b) => b.rcuPerSecond - a.rcuPerSecond)[0]!;

const zipf = (rank: number) => rank ** -ZIPF_EXPONENT;

function measuredWriteUnitsPerOrder(): number | undefined {
  try {
    const results = JSON.parse(readFileSync(new URL('../results/latest.json', import.meta.url), 'utf8')) as { figures: Figure[] };
    return results.figures.find((f) => f.suite === 'orders' && f.name === 'write units per order, as DynamoDB bills them')?.value;
  } catch {
    return undefined;
  }
}

/**
 * Every tenant's peak write units per second on each partition of a global kind, by the real
 * key builders over sample ids: a kind whose partition follows the tenant (the order due
 * index) loads its partitions as unevenly as the tenants' rates are.
 */
function globalLoad(w: Write): Map<string, number> {
  const load = new Map<string, number>();
  const SAMPLES = 32;
  for (let i = 0; i < TENANTS; i++) {
    const perSample = (zipf(i + 1) * TOP_ORDERS_PER_SECOND * w.count * w.units) / SAMPLES;
    for (let k = 0; k < SAMPLES; k++) {
      const partition = w.partition(i === 0 ? 'top' : `tenant-${i}`, `o-${i}-${k}`, `dlv_${i}_${k}`);
      load.set(partition, (load.get(partition) ?? 0) + perSample);
    }
  }
  return load;
}

/** Peak write units per second on each partition kind: the top tenant's share for tenant-scoped ones, the hottest of every tenant's for global ones. */
function hottestPartitions() {
  return ORDER_PLAN.map((w) => {
    if (w.scope === 'global') {
      const load = globalLoad(w);
      return { what: w.what, partitions: String(load.size), wcuPerSecond: Math.max(...load.values()) };
    }
    // How many partitions of this kind share the load (the real builders, over many sample ids).
    const partitions = new Set(Array.from({ length: 4_000 }, (_, i) => w.partition('top', `o-${i}`, `dlv_${i}`))).size;
    // An order's own partition takes its writes over its lifetime (a minute at least).
    const perPartition = w.scope === 'order' ? (w.count * w.units) / 60 : (TOP_ORDERS_PER_SECOND * w.count * w.units) / partitions;
    return { what: w.what, partitions: w.scope === 'order' ? 'one per order' : String(partitions), wcuPerSecond: perPartition };
  }).sort((a, b) => b.wcuPerSecond - a.wcuPerSecond);
}

interface Peak {
  totalOrdersPerSecond: number;
  totalProductsPerSecond: number;
  writeUnitsPerOrder: number;
  hottest: ReturnType<typeof hottestPartitions>;
}

function peakOf(): Peak {
  const weights = Array.from({ length: TENANTS }, (_, i) => zipf(i + 1));
  const totalOrdersPerSecond = weights.reduce((sum, w) => sum + w * TOP_ORDERS_PER_SECOND, 0);
  const totalProductsPerSecond = weights.reduce((sum, w) => sum + w * TOP_PRODUCTS_PER_SECOND, 0);
  const writeUnitsPerOrder = ORDER_PLAN.reduce((sum, w) => sum + w.count * w.units, 0);
  // The largest catalog import (new products, all active and in stock): each list entry (under 1 KB, 1 WCU) in its status partition of gsi1, and again in its availability partition of gsi3.
  const catalog = {
    what: 'products list index (gsi1, and likewise gsi3) during the largest import',
    partitions: String(LIST_SHARDS.PRODUCTS),
    wcuPerSecond: TOP_PRODUCTS_PER_SECOND / LIST_SHARDS.PRODUCTS,
  };
  const hottest = [...hottestPartitions(), catalog].sort((a, b) => b.wcuPerSecond - a.wcuPerSecond);
  return { totalOrdersPerSecond, totalProductsPerSecond, writeUnitsPerOrder, hottest };
}

/** An invocation of ~50 ms at 512 MB. */
const INVOCATION_USD = (PRICES.lambdaRequestsPerMillion + 0.05 * 0.5 * PRICES.lambdaArmGbSecond * 1e6) / 1e6;
/** Per attempt: two contact events (disconnected, completed) to the worker's queue; per answered call, the dialog function's turns. */
const CONTACT_EVENTS_PER_ATTEMPT = 2;
const DIALOG_TURNS_PER_ANSWERED_CALL = 2;

function dayCost(peak: Peak) {
  const dayOrders = peak.totalOrdersPerSecond * DAY_PEAK_SECONDS;
  const requests = dayOrders * API_REQUESTS_PER_ORDER;
  const dynamo =
    (dayOrders * peak.writeUnitsPerOrder * PRICES.dynamoWritePerMillionUnits + dayOrders * READ_UNITS_PER_ORDER * PRICES.dynamoReadPerMillionUnits) / 1e6;
  // Every request and twice every event (stream processor, sender) is an invocation.
  const lambda = (requests + dayOrders * EVENTS_PER_ORDER * 2) * INVOCATION_USD;
  const sqs = (sqsRequestsPerSecond(peak) * DAY_PEAK_SECONDS * PRICES.sqsPerMillionRequests) / 1e6;
  const restApi = (requests * PRICES.apiGatewayRestPerMillion) / 1e6;
  const httpApi = (requests * PRICES.apiGatewayHttpPerMillion) / 1e6;
  // The telephone: the minutes billed (Connect's voice usage and the carrier's rate), and what the calls add to the rest.
  const calls = callMinutes();
  const dayAttempts = dayOrders * calls.attemptsPerOrder;
  const minutes = dayOrders * calls.billedMinutesPerOrder * (PRICES.connectVoicePerMinute + PRICES.telephonyPerMinute);
  const callEvents = dayAttempts * CONTACT_EVENTS_PER_ATTEMPT;
  const callPlumbing =
    (callEvents + dayOrders * DIALOG_TURNS_PER_ANSWERED_CALL) * INVOCATION_USD +
    (callEvents * 3 * PRICES.sqsPerMillionRequests) / 1e6 +
    (callEvents * PRICES.eventBridgeAwsServiceEventsPerMillion) / 1e6;
  return {
    rest: restApi + dynamo + lambda + sqs,
    http: httpApi + dynamo + lambda + sqs,
    restApi,
    httpApi,
    minutes,
    withCalls: restApi + dynamo + lambda + sqs + minutes + callPlumbing,
    calls,
  };
}

// Send, receive and delete per delivery attempt (a retry changes visibility instead of sending again).
const sqsRequestsPerSecond = (peak: Peak) => peak.totalOrdersPerSecond * EVENTS_PER_ORDER * (1 + FIRST_DELIVERY_FAILS) * 3;

/** The model's order path beside the orders suite's metered order, and how far apart they are. */
function agreementFigures(orderPath: number, measured: number | undefined): Figure[] {
  return [
    figure({
      suite: 'model',
      name: "write units per order in the model, the order path with its POST's records (no webhooks)",
      value: orderPath,
      unit: 'WCU',
      ...(measured ? { floor: { value: measured, label: 'billed in the orders suite (from the written items, by DynamoDB rules)' } } : {}),
    }),
    ...(measured
      ? [
          figure({
            suite: 'model',
            name: "the model's order path against the metered order: difference",
            value: Math.round((Math.abs(orderPath - measured) / measured) * 1000) / 10,
            unit: '%',
            floor: { value: 10, label: 'the agreement the model must keep with the metered order' },
            target: { ratio: 1, direction: 'at_most' as const },
          }),
        ]
      : []),
  ];
}

/** A day at 10,000 tenants without the telephone and with it, each beside its floor. */
function costFigures(cost: ReturnType<typeof dayCost>): Figure[] {
  return [
    figure({
      suite: 'model',
      name: 'cost of one day without the telephone, REST API',
      value: cost.rest,
      unit: 'USD/day',
      floor: { value: cost.restApi, label: 'the API requests alone (API Gateway REST)' },
    }),
    figure({
      suite: 'model',
      name: 'cost of one day without the telephone, HTTP API',
      value: cost.http,
      unit: 'USD/day',
      floor: { value: cost.httpApi, label: 'the API requests alone (API Gateway HTTP)' },
    }),
    figure({
      suite: 'model',
      name: 'cost of one day with the telephone, REST API',
      value: cost.withCalls,
      unit: 'USD/day',
      floor: { value: cost.minutes, label: 'the telephone minutes alone' },
      note:
        `${cost.calls.attemptsPerOrder} attempts and ${cost.calls.billedMinutesPerOrder} billed minutes per order (the sandbox scenarios' mix; ` +
        `a confirmed call of a three-line order speaks ${Math.round(cost.calls.conversationSeconds)} s) at ${PRICES.connectVoicePerMinute} + ` +
        `${PRICES.telephonyPerMinute} USD a minute; plus the dialog turns, contact events and their queue`,
    }),
  ];
}

export async function run(): Promise<Figure[]> {
  const peak = peakOf();
  const top = peak.hottest[0]!;
  const peakWcu = peak.totalOrdersPerSecond * peak.writeUnitsPerOrder + peak.totalProductsPerSecond * 4;
  const peakRcu = peak.totalOrdersPerSecond * READ_UNITS_PER_ORDER + peak.totalProductsPerSecond * READ_UNITS_PER_PRODUCT;
  const cost = dayCost(peak);
  const measured = measuredWriteUnitsPerOrder();
  const orderPath = ORDER_PLAN.filter((w) => !isDelivery(w) && !isRequest(w)).reduce((sum, w) => sum + w.count * w.units, 0) + POST_RECORDS;
  return [
    figure({
      suite: 'model',
      name: `hottest partition at peak, writes (${top.what})`,
      value: top.wcuPerSecond,
      unit: 'WCU/s',
      floor: { value: PARTITION_WCU, label: "DynamoDB's per-partition limit" },
      target: { ratio: 0.5, direction: 'at_most' },
      note: peak.hottest.map((h) => `${h.what}: ${h.wcuPerSecond.toFixed(0)} WCU/s (${h.partitions})`).join('; '),
    }),
    figure({
      suite: 'model',
      name: `hottest partition at peak, reads (${hottestRead.what})`,
      value: hottestRead.rcuPerSecond,
      unit: 'RCU/s',
      floor: { value: PARTITION_RCU, label: "DynamoDB's per-partition limit" },
      target: { ratio: 0.5, direction: 'at_most' },
      note: HOT_READS.map((r) => `${r.what}: ${r.rcuPerSecond.toFixed(0)} RCU/s`).join('; '),
    }),
    ...peak.hottest
      .filter((h) => h.partitions !== 'one per order')
      .map((h) =>
        figure({
          suite: 'model',
          name: `partition at peak: ${h.what} (${h.partitions} partitions)`,
          value: h.wcuPerSecond,
          unit: 'WCU/s',
          floor: { value: PARTITION_WCU, label: "DynamoDB's per-partition limit" },
          target: { ratio: 0.5, direction: 'at_most' },
        }),
      ),
    figure({ suite: 'model', name: 'orders per second at peak, all tenants', value: peak.totalOrdersPerSecond, unit: 'orders/s' }),
    figure({
      suite: 'model',
      name: "the largest tenant's delivery attempts under way at peak (a fast endpoint, 100 ms an answer)",
      value: (TOP_ORDERS_PER_SECOND * EVENTS_PER_ORDER * (1 + FIRST_DELIVERY_FAILS) * FAST_ANSWER_MS) / 1000,
      unit: 'attempts',
      floor: {
        value: SENDER_INSTANCES * UNGUARDED_PER_INSTANCE + ENDPOINT_SLOTS,
        label: 'what the sender runs at once for one fast endpoint: each instance without slots, and the slots',
      },
      target: { ratio: 1, direction: 'at_most' },
    }),
    figure({
      suite: 'model',
      name: 'table partitions at peak (so stream shards, and stream processor concurrency at one batch per shard)',
      value: Math.ceil(Math.max(peakWcu / PARTITION_WCU, peakRcu / PARTITION_RCU)),
      unit: 'partitions',
      note: `${Math.round(peakWcu)} WCU/s and ${Math.round(peakRcu)} RCU/s at peak`,
    }),
    figure({ suite: 'model', name: 'SQS requests per second at peak', value: sqsRequestsPerSecond(peak), unit: 'requests/s' }),
    ...agreementFigures(orderPath, measured),
    figure({ suite: 'model', name: 'write units per order in the model, everything', value: peak.writeUnitsPerOrder, unit: 'WCU' }),
    ...costFigures(cost),
  ];
}
