/**
 * The partners of the fairness suite, run in a worker thread beside the local stack: tenant
 * A's flood and its hanging endpoint, tenant B's client and receiver. On AWS the partners'
 * work never shares the service's CPU, and here it does not share its event loop, so B's
 * receiver stamps a delivery when it arrives, not when the runtime's loop lets it. The thread
 * reports each phase's start and end, so the suite can tell how busy the service was.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createCommerceClient } from '#client/index.ts';
import { MAX_SALES_RULES } from '#shared/api/limits.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { startHangingEndpoint, startReceiver } from '#test/support/receiver.ts';
import { benchTenant, CALL_NOW_CONFIG, send } from '../lib/client.ts';
import { progress } from '../lib/measure.ts';
import { beansOrder, prepareOrdering } from '../lib/ordering.ts';

/**
 * B's p99 from event to delivery is the 9th slowest of about 840 deliveries: over 420 (60
 * orders) one burst of a few slow deliveries on the shared machine set it, and it ranged
 * 1.08–1.68× between runs of the same code. A's work is doubled with it, so the flood lasts
 * through B's longer phase (its rate limit is unchanged).
 */
const B_ORDERS = 120;
/**
 * B's orders come a second apart on average, spread evenly over ±125 ms: at a fixed period
 * every order would meet the stream pollers (one read per 200 ms while idle) at one phase,
 * which a run picks by chance, and a run's p50 alone would be that phase's, not B's.
 */
const B_SPACING_MS = { mean: 1000, spread: 250 };
const B_WARM_UP = 5;
const A_DUE = 120;
const A_LATER = 120;
/**
 * A's rate limit, sized by the suite's rule (the DynamoDB Local write probe and the service's
 * event-loop delay during the flood within B alone's spread): at 10 requests/s, with A's work
 * lasting all of B's phase, the probe's p99 rose to 40–46 ms against 30–34 alone and the CPU to
 * 45–47 % against 24–26; at 5 it stays within (27 ms against 31). A still sends past it all
 * through B's phase.
 */
const A_RATE = 5;
const A_TEST_DELIVERIES = 800;

interface Delivered {
  event_type: string;
  occurred_at: string;
  external_order_id: string | null;
  data: { processing_state?: string };
}

export type PartnerMessage =
  | { kind: 'phase'; edge: 'start' | 'end'; label: string }
  | { kind: 'done'; measured: Measured }
  | { kind: 'failed'; message: string };

const phase = (edge: 'start' | 'end', label: string) => parentPort?.postMessage({ kind: 'phase', edge, label } satisfies PartnerMessage);

/** B's normal mix: an order about once a second; the time to each order's first call and each event's delivery. */
async function tenantB(baseUrl: string, label: string, orders = B_ORDERS) {
  const key = await benchTenant(`fair-b-${label}`);
  await prepareOrdering(baseUrl, key);
  const receiver = await startReceiver(() => 'ok');
  try {
    const types = ['commerce.order.status_changed.v1', 'commerce.call.attempt_completed.v1', 'commerce.order.result_ready.v1'];
    const put = await send(baseUrl, key, 'PUT', '/webhook-subscription', { url: receiver.url, event_types: types });
    if (put.status !== 201) throw new Error(`PUT /webhook-subscription answered ${put.status}`);
    phase('start', label);
    const postedAt = new Map<string, number>();
    for (let i = 0; i < orders; i++) {
      const id = `b-${i}`;
      postedAt.set(id, Date.now());
      const res = await send(baseUrl, key, 'POST', '/orders', beansOrder(id));
      if (res.status !== 201) throw new Error(`B's POST /orders answered ${res.status}`);
      await new Promise((r) => setTimeout(r, B_SPACING_MS.mean + (Math.random() - 0.5) * B_SPACING_MS.spread));
    }
    const inCall = () =>
      receiver.received
        .map((r) => JSON.parse(r.body) as Delivered)
        .filter((e) => e.event_type === 'commerce.order.status_changed.v1' && e.data.processing_state === 'in_call');
    const results = () => receiver.received.filter((r) => (JSON.parse(r.body) as Delivered).event_type === 'commerce.order.result_ready.v1').length;
    const deadline = Date.now() + 5 * 60_000;
    while ((results() < orders || inCall().length < orders) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    phase('end', label);
    if (results() < orders) throw new Error(`B lost work: ${results()} of ${orders} results delivered`);
    const toCall = inCall().map((e) => Date.parse(e.occurred_at) - postedAt.get(e.external_order_id!)!);
    const toDelivery = receiver.received.map((r) => r.at - Date.parse((JSON.parse(r.body) as Delivered).occurred_at));
    if (process.env.FAIRNESS_DEBUG) {
      const byType = new Map<string, number[]>();
      for (const r of receiver.received) {
        const e = JSON.parse(r.body) as Delivered;
        const kind = `${e.event_type} ${e.data.processing_state ?? ''}`;
        byType.set(kind, [...(byType.get(kind) ?? []), r.at - Date.parse(e.occurred_at)]);
      }
      for (const [kind, ms] of byType) progress(`${label} ${kind}: ${ms.sort((a, b) => a - b).join(' ')}`);
      // The slowest deliveries, split into their stages: fan-out (event to delivery created) and send (created to received).
      const deliveries = new Map<string, { created_at: string; attempts: number; last_attempt: { at: string; latency_ms: number } | null }>();
      const client = createCommerceClient({ baseUrl, keyId: key.keyId, secret: key.secret });
      for await (const d of client.webhooks.deliveries()) deliveries.set(d.event_id, d);
      const stages = receiver.received
        .map((r) => {
          const e = JSON.parse(r.body) as Delivered & { event_id: string };
          const d = deliveries.get(e.event_id);
          return {
            total: r.at - Date.parse(e.occurred_at),
            fanOut: d ? Date.parse(d.created_at) - Date.parse(e.occurred_at) : -1,
            send: d ? r.at - Date.parse(d.created_at) : -1,
            queued: d?.last_attempt ? Date.parse(d.last_attempt.at) - Date.parse(d.created_at) : -1,
            post: d?.last_attempt?.latency_ms ?? -1,
            attempts: d?.attempts,
          };
        })
        .sort((a, b) => b.total - a.total)
        .slice(0, 6);
      progress(`${label} slowest deliveries: ${JSON.stringify(stages)}`);
    }
    return { toCall: toCall.sort((a, b) => a - b), toDelivery: toDelivery.sort((a, b) => a - b), events: receiver.received.length };
  } finally {
    await receiver.close();
  }
}

/** Tenant A's flood; resolves its tallies once `stop` is called. */
async function tenantA(baseUrl: string, endpoint: string) {
  const key = await benchTenant('fair-a', { ...CALL_NOW_CONFIG, rate_limit: { requests_per_second: A_RATE, burst: A_RATE } });
  const statuses = new Map<number, number>();
  const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
  await prepareOrdering(baseUrl, key);
  await send(baseUrl, key, 'PUT', '/webhook-subscription', { url: endpoint, event_types: ['commerce.order.status_changed.v1'] });
  // The most rules a tenant may have (every qualification of A's orders weighs them), and one
  // more, refused: written before the flood, as a tenant's rules are set up once.
  const rules = await mapWithConcurrency(
    Array.from({ length: MAX_SALES_RULES + 1 }, (_, i) => i),
    4,
    async (i) => {
      const rule = { rule_type: 'upsell', applies_to: { category: `c-${i}` }, action: { suggest_variant: `v-${i}` }, source_version: '1' };
      for (;;) {
        const res = await send(baseUrl, key, 'PUT', `/sales-rules/r-${i}`, rule);
        if (res.status !== 429) return res.status;
        await new Promise((r) => setTimeout(r, 1000));
      }
    },
  );
  const rulesKept = { stored: rules.filter((status) => status === 200).length, refused: rules.filter((status) => status === 409).length };
  let running = true;
  const later = new Date(Date.now() + 300 * 86_400_000).toISOString();
  // Due and far-future orders alternate, so both kinds are in A's backlog however far the flood gets.
  const orders = Array.from({ length: A_DUE + A_LATER }, (_, i) =>
    i % 2 === 0
      ? () => send(baseUrl, key, 'POST', '/orders', beansOrder(`a-due-${i / 2}`, { priority: 1000 }))
      : () => send(baseUrl, key, 'POST', '/orders', beansOrder(`a-later-${(i - 1) / 2}`, { priority: 1000, contact_not_before: later })),
  );
  const testDeliveries = Array.from({ length: A_TEST_DELIVERIES }, () => () => send(baseUrl, key, 'POST', '/webhook-subscription/test'));
  // Orders and test deliveries interleaved, so both run through the whole of B's phase.
  const perOrder = Math.ceil(testDeliveries.length / orders.length);
  const work = orders.flatMap((order, i) => [order, ...testDeliveries.slice(i * perOrder, (i + 1) * perOrder)]);
  // Everything A asks for, at its rate limit (its 429s are retried until admitted, as a client would).
  const flood = mapWithConcurrency(work, 4, async (request) => {
    for (let tries = 0; running && tries < 50; tries++) {
      const res = await request();
      count(res.status);
      if (res.status !== 429) return;
      await new Promise((r) => setTimeout(r, 1000));
    }
  });
  const chatter = (async () => {
    while (running) {
      count((await send(baseUrl, key, 'GET', '/capabilities')).status);
      // Half the rate limit; the flood's retries take the rest.
      await new Promise((r) => setTimeout(r, 2000 / A_RATE));
    }
  })();
  return {
    key,
    rulesKept,
    stop: async () => {
      running = false;
      await Promise.all([flood, chatter]);
      return Object.fromEntries(statuses);
    },
  };
}

export type Measured = Awaited<ReturnType<typeof measure>>;

async function measure(baseUrl: string) {
  // A few untimed orders first: the local functions' first invocations (module load, JIT) are no part of B's figures alone.
  progress(`B warms up: ${B_WARM_UP} orders`);
  await tenantB(baseUrl, 'warm-up', B_WARM_UP);
  progress(`B alone: ${B_ORDERS} orders, about one a second`);
  const alone = await tenantB(baseUrl, 'alone');
  const endpoint = await startHangingEndpoint();
  try {
    progress(
      `A floods: ${A_DUE} due and ${A_LATER} later orders at priority 1000, ${MAX_SALES_RULES} rules, ${A_TEST_DELIVERIES} test deliveries to a hanging endpoint, ${A_RATE} requests/s`,
    );
    const a = await tenantA(baseUrl, endpoint.url);
    const during = await tenantB(baseUrl, 'during');
    const aStatuses = await a.stop();
    const breaker = (await send(baseUrl, a.key, 'GET', '/webhook-subscription')).body?.health?.breaker as string | undefined;
    return {
      alone,
      during,
      aStatuses,
      breaker,
      rulesKept: a.rulesKept,
      endpointAttempts: endpoint.figures().requests,
      aTestDeliveries: A_TEST_DELIVERIES,
      bOrders: B_ORDERS,
    };
  } finally {
    await endpoint.close();
  }
}

if (parentPort) {
  const port = parentPort;
  measure((workerData as { baseUrl: string }).baseUrl).then(
    (measured) => port.postMessage({ kind: 'done', measured } satisfies PartnerMessage),
    (error: Error) => port.postMessage({ kind: 'failed', message: error.stack ?? String(error) } satisfies PartnerMessage),
  );
}
