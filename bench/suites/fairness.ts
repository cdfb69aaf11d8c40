/**
 * `fairness`: the noisy-neighbour suite. Tenant B runs a normal mix (orders due now, one a
 * second, each called by the sandbox dialer; every event delivered to B's receiver), first
 * alone and then while tenant A floods:
 *
 * - A_DUE orders due now at priority 1000 and A_LATER with far contact times, all at once;
 * - a webhook endpoint that accepts connections and never answers, with a storm of test
 *   deliveries to it (as many as A's limit lets through, the rest 429);
 * - the most sales rules a tenant may have (MAX_SALES_RULES, set up before the flood: every
 *   qualification of A's orders weighs them; one more is refused);
 * - GET /capabilities at its own rate limit (A_RATE a second) the whole time.
 *
 * Figures: B's p50 and p99 from POST /orders to the order's `in_call` (its first call) and
 * from an event's `occurred_at` to its delivery at B's receiver, during the flood beside
 * alone (the floor): target ≤ 1.5×. Sizing: A's request flood is 20 requests a second plus
 * its orders and rules in bursts, a small fraction of what the 2-core machine serves (the
 * `load` suite measures hundreds a second), so what would slow B is the design (one sweep,
 * one sender for every tenant), not the CPU.
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { MAX_SALES_RULES } from '#shared/rules/rule-schemas.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { startReceiver } from '#test/support/receiver.ts';
import { type BenchKey, benchTenant, CALL_NOW_CONFIG, send } from '../lib/client.ts';
import { figure, type Figure } from '../lib/figures.ts';
import { percentile, progress } from '../lib/measure.ts';

const B_ORDERS = 30;
const A_DUE = 60;
const A_LATER = 60;
const A_RATE = 20;
const A_TEST_DELIVERIES = 400;

/** A product, a customer who answers, and the variant indexed. */
async function prepare(baseUrl: string, key: BenchKey): Promise<void> {
  await send(baseUrl, key, 'POST', '/products/batch', {
    products: [
      { external_product_id: 'coffee', title: 'Coffee', source_version: '1', variants: [{ external_variant_id: 'beans', price: '9.99', currency: 'EUR' }] },
    ],
  });
  await send(baseUrl, key, 'PUT', '/customers/c0', {
    phone: '+4915100000000',
    locale: 'de-DE',
    consent: { status: 'granted', proof: { source: 'checkout', reference: 'r', collected_at: '2026-01-01T00:00:00Z' } },
    source_version: '1',
  });
  for (let i = 0; !(await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.variant(key.tenant, 'beans') }))).Item; i++) {
    if (i > 600) throw new Error('the variant index did not catch up');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const order = (id: string, extra: Record<string, unknown> = {}) => ({
  order_kind: 'standard',
  external_order_id: id,
  external_customer_id: 'c0',
  items: [{ external_variant_id: 'beans', quantity: 1, price: '9.99', currency: 'EUR' }],
  contact_permission: { status: 'granted' },
  source_version: '1',
  ...extra,
});

interface Delivered {
  event_type: string;
  occurred_at: string;
  external_order_id: string | null;
  data: { processing_state?: string };
}

/** B's normal mix: one order a second; the time to each order's first call and each event's delivery. */
async function tenantB(baseUrl: string, label: string) {
  const key = await benchTenant(`fair-b-${label}`);
  await prepare(baseUrl, key);
  const receiver = await startReceiver(() => 'ok');
  try {
    const types = ['commerce.order.status_changed.v1', 'commerce.call.attempt_completed.v1', 'commerce.order.result_ready.v1'];
    const put = await send(baseUrl, key, 'PUT', '/webhook-subscription', { url: receiver.url, event_types: types });
    if (put.status !== 201) throw new Error(`PUT /webhook-subscription answered ${put.status}`);
    const postedAt = new Map<string, number>();
    for (let i = 0; i < B_ORDERS; i++) {
      const id = `b-${i}`;
      postedAt.set(id, Date.now());
      const res = await send(baseUrl, key, 'POST', '/orders', order(id));
      if (res.status !== 201) throw new Error(`B's POST /orders answered ${res.status}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    const inCall = () =>
      receiver.received
        .map((r) => JSON.parse(r.body) as Delivered)
        .filter((e) => e.event_type === 'commerce.order.status_changed.v1' && e.data.processing_state === 'in_call');
    const results = () => receiver.received.filter((r) => (JSON.parse(r.body) as Delivered).event_type === 'commerce.order.result_ready.v1').length;
    const deadline = Date.now() + 5 * 60_000;
    while ((results() < B_ORDERS || inCall().length < B_ORDERS) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    if (results() < B_ORDERS) throw new Error(`B lost work: ${results()} of ${B_ORDERS} results delivered`);
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
    }
    return { toCall: toCall.sort((a, b) => a - b), toDelivery: toDelivery.sort((a, b) => a - b), events: receiver.received.length };
  } finally {
    await receiver.close();
  }
}

/** An endpoint that takes every request and answers none. */
async function hangingEndpoint() {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server: Server = createServer((req) => {
    req.resume();
    requests++;
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Tenant A's flood; resolves its tallies once `stop` is called. */
async function tenantA(baseUrl: string, endpoint: string) {
  const key = await benchTenant('fair-a', { ...CALL_NOW_CONFIG, rate_limit: { requests_per_second: A_RATE, burst: A_RATE } });
  const statuses = new Map<number, number>();
  const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
  await prepare(baseUrl, key);
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
  const work = [
    ...Array.from({ length: A_DUE }, (_, i) => () => send(baseUrl, key, 'POST', '/orders', order(`a-due-${i}`, { priority: 1000 }))),
    ...Array.from(
      { length: A_LATER },
      (_, i) => () => send(baseUrl, key, 'POST', '/orders', order(`a-later-${i}`, { priority: 1000, contact_not_before: later })),
    ),
    ...Array.from({ length: A_TEST_DELIVERIES }, () => () => send(baseUrl, key, 'POST', '/webhook-subscription/test')),
  ];
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
      await new Promise((r) => setTimeout(r, 1000 / A_RATE));
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

export async function run(baseUrl: string): Promise<Figure[]> {
  progress(`B alone: ${B_ORDERS} orders, one a second`);
  const alone = await tenantB(baseUrl, 'alone');
  const endpoint = await hangingEndpoint();
  try {
    progress(
      `A floods: ${A_DUE} due and ${A_LATER} later orders at priority 1000, ${MAX_SALES_RULES} rules, ${A_TEST_DELIVERIES} test deliveries to a hanging endpoint, ${A_RATE} requests/s`,
    );
    const a = await tenantA(baseUrl, endpoint.url);
    const during = await tenantB(baseUrl, 'during');
    const aStatuses = await a.stop();
    const breaker = (await send(baseUrl, a.key, 'GET', '/webhook-subscription')).body?.health;
    progress(`A's answers: ${JSON.stringify(aStatuses)}; its endpoint got ${endpoint.requests()} attempts; breaker ${breaker?.breaker}`);
    const note = `B: ${B_ORDERS} orders and ${during.events} events delivered during the flood (${alone.events} alone), none lost; A's answers ${JSON.stringify(aStatuses)}, its rules ${a.rulesKept.stored} stored and ${a.rulesKept.refused} refused (set up before the flood), its hanging endpoint got ${endpoint.requests()} attempts for ${A_TEST_DELIVERIES} test deliveries`;
    const pair = (name: string, unit: string, value: number, floor: number) =>
      figure({
        suite: 'fairness',
        name,
        value,
        unit,
        floor: { value: Math.max(floor, 1), label: 'the same, tenant B alone' },
        target: { ratio: 1.5, direction: 'at_most' },
        note,
      });
    return [
      pair('B: POST /orders to first call, p50 during the flood', 'ms', percentile(during.toCall, 50), percentile(alone.toCall, 50)),
      pair('B: POST /orders to first call, p99 during the flood', 'ms', percentile(during.toCall, 99), percentile(alone.toCall, 99)),
      pair('B: event to delivery, p50 during the flood', 'ms', percentile(during.toDelivery, 50), percentile(alone.toDelivery, 50)),
      pair('B: event to delivery, p99 during the flood', 'ms', percentile(during.toDelivery, 99), percentile(alone.toDelivery, 99)),
    ];
  } finally {
    await endpoint.close();
  }
}
