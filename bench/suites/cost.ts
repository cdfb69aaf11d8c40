/**
 * `cost`: USD per million calls of every endpoint, from the DynamoDB units and calls each
 * request consumed (X-Bench-Capacity, metered per request in bench runs only) and its
 * measured handler time at the memory the CDK app configures, beside the minimum its data
 * model needs; and the same for the load suite's mix.
 */
import { ROUTES } from '#functions/routes.ts';
import { FUNCTION_SETTINGS } from '#infra/deployment-settings.ts';
import { type BenchKey, benchTenant, signed } from '../lib/client.ts';
import { type Figure, figure } from '../lib/figures.ts';
import { median, progress } from '../lib/measure.ts';
import { beansOrder, CALL_LATER, prepareOrdering } from '../lib/ordering.ts';
import { PRICES, type RequestCost, usdPerMillion } from '../lib/prices.ts';

const RUNS = 15;
const GRANTED = { status: 'granted', proof: { source: 'checkout', reference: 'r', collected_at: '2026-01-01T00:00:00Z' } };
const version = () => String(process.hrtime.bigint());

/** A valid request per endpoint, and the units its data model needs at the least (reads, writes). */
const REQUESTS: Record<
  string,
  {
    method: string;
    /** `run`: which of the RUNS calls this is. */
    path: (run: number) => string;
    body?: () => unknown;
    minimum: [number, number];
    sqs?: number;
    /** Each call by a tenant of its own: a tenant holds at most 5 listen sessions at once. */
    freshTenant?: true;
  }
> = {
  getCapabilities: { method: 'GET', path: () => '/capabilities', minimum: [0, 2] },
  getEffectiveConfiguration: { method: 'GET', path: () => '/configuration/effective', minimum: [0.5, 2] },
  upsertProductsBatch: {
    method: 'POST',
    path: () => '/products/batch',
    body: () => ({
      products: [
        // Its own variant: archiving p1 below must not reject the orders, which order `beans` (prepareOrdering's).
        {
          external_product_id: 'p1',
          title: 'Coffee',
          source_version: version(),
          variants: [{ external_variant_id: 'p1-beans', price: '9.99', currency: 'EUR' }],
        },
      ],
    }),
    minimum: [0, 4 + 1],
  },
  listProducts: { method: 'GET', path: () => '/products', minimum: [0.5, 2] },
  getProduct: { method: 'GET', path: () => '/products/p1', minimum: [0.5, 2] },
  archiveProduct: { method: 'DELETE', path: () => '/products/p1', minimum: [0, 4 + 1] },
  putCustomer: {
    method: 'PUT',
    path: () => '/customers/c1',
    body: () => ({ phone: '+4915100000000', locale: 'de-DE', consent: GRANTED, source_version: version() }),
    minimum: [0, 4 + 1],
  },
  getCustomer: { method: 'GET', path: () => '/customers/c1', minimum: [0.5, 2] },
  anonymizeCustomer: { method: 'POST', path: () => '/customers/c1/anonymize', minimum: [0, 4 + 2] },
  createOrder: {
    method: 'POST',
    path: () => '/orders',
    body: () => beansOrder(`o-${version()}`, { customer: 'c2', contact_not_before: CALL_LATER }),
    minimum: [0, 4 + 2 + 1],
  },
  listOrders: { method: 'GET', path: () => '/orders', minimum: [0.5, 2] },
  getOrder: { method: 'GET', path: () => '/orders/fixed', minimum: [0.5, 2] },
  updateOrder: { method: 'PATCH', path: () => '/orders/fixed', body: () => ({ source_version: version(), priority: 1 }), minimum: [1.5, 4 + 2 + 1] },
  // An order of its own each call: cancelling a cancelled order answers it again and writes nothing.
  cancelOrder: { method: 'POST', path: (run) => `/orders/to-cancel-${run}/cancel`, minimum: [0.5, 4 + 2 + 1] },
  getOrderResult: { method: 'GET', path: () => '/orders/fixed/result', minimum: [0.5, 2] },
  listOrderCalls: { method: 'GET', path: () => '/orders/fixed/calls', minimum: [1, 2] },
  putSalesRule: {
    method: 'PUT',
    path: () => '/sales-rules/r1',
    body: () => ({ rule_type: 'upsell', applies_to: { category: 'coffee' }, action: { suggest_variant: 'beans' }, source_version: version() }),
    minimum: [0, 4 + 1],
  },
  listSalesRules: { method: 'GET', path: () => '/sales-rules', minimum: [0.5, 2] },
  getSalesRule: { method: 'GET', path: () => '/sales-rules/r1', minimum: [0.5, 2] },
  archiveSalesRule: { method: 'DELETE', path: () => '/sales-rules/r1', minimum: [0, 4 + 1] },
  getWebhookSubscription: { method: 'GET', path: () => '/webhook-subscription', minimum: [0.5, 2] },
  putWebhookSubscription: {
    method: 'PUT',
    path: () => '/webhook-subscription',
    body: () => ({ url: 'http://127.0.0.1:9/hook', event_types: ['commerce.order.result_ready.v1'] }),
    minimum: [0, 4 + 1],
  },
  rotateWebhookSecret: { method: 'POST', path: () => '/webhook-subscription/secret/rotate', minimum: [0.5, 4 + 1] },
  testWebhookSubscription: { method: 'POST', path: () => '/webhook-subscription/test', minimum: [0.5, 4 + 1] },
  listWebhookDeliveries: { method: 'GET', path: () => '/webhook-deliveries', minimum: [0.5, 2] },
  getWebhookDelivery: { method: 'GET', path: () => '/webhook-deliveries/dlv_bench', minimum: [0.5, 2] },
  replayWebhookDelivery: { method: 'POST', path: () => '/webhook-deliveries/dlv_bench/replay', minimum: [0.5, 4 + 1], sqs: 1 },
  // Nothing dead-lettered: the status index read, no replay.
  recoverWebhookDeliveries: { method: 'POST', path: () => '/webhook-deliveries/recover', body: () => ({ since: '2026-01-01T00:00:00Z' }), minimum: [0.5, 4] },
  // The tenant's live sessions read (at most 5), the session put.
  createListenSession: { method: 'POST', path: () => '/webhook-listen-sessions', body: () => ({}), minimum: [0.5, 4 + 1], freshTenant: true },
  // The session read and renewed (it ends a minute after its last read), its feed's page read.
  readListenFeed: { method: 'GET', path: () => `/webhook-listen-sessions/${listenSessionId}/events`, minimum: [1.5, 2 + 1] },
};
/** The live listen session `readListenFeed` reads, started by the suite's setup. */
let listenSessionId = '';
/** The minimum written for every request: the nonce and the rate window (1 WCU each); a mutation adds its idempotency record (2 writes). */

async function measure(baseUrl: string, key: BenchKey, operationId: string): Promise<RequestCost & { status: number }> {
  const spec = REQUESTS[operationId]!;
  const origin = baseUrl.slice(0, -'/api/v1/commerce'.length);
  const samples: { ms: number; read: number; write: number }[] = [];
  let status = 0;
  for (let i = 0; i < RUNS; i++) {
    const caller = spec.freshTenant ? await benchTenant('bench-cost-fresh') : key;
    const req = signed(caller, spec.method, spec.path(i), spec.body?.());
    const start = performance.now();
    const res = await fetch(origin + req.path, { method: spec.method, headers: req.headers, ...(req.body ? { body: req.body } : {}) });
    await res.text();
    const ms = performance.now() - start;
    status = res.status;
    const capacity = JSON.parse(res.headers.get('x-bench-capacity') ?? '{"readUnits":0,"writeUnits":0}');
    samples.push({ ms, read: capacity.readUnits, write: capacity.writeUnits });
  }
  return {
    status,
    handlerMs: median(samples.map((s) => s.ms)),
    readUnits: median(samples.map((s) => s.read)),
    writeUnits: median(samples.map((s) => s.write)),
    sqsRequests: REQUESTS[operationId]!.sqs ?? 0,
  };
}

/** The load suite's mix: 60 % GET order, 20 % POST orders, 10 % list orders, 10 % PUT customer. */
const MIX: [string, number][] = [
  ['getOrder', 0.6],
  ['createOrder', 0.2],
  ['listOrders', 0.1],
  ['putCustomer', 0.1],
];

export async function run(baseUrl: string): Promise<Figure[]> {
  const key = await benchTenant('bench-cost');
  const send = async (method: string, path: string, body?: unknown) => {
    const req = signed(key, method, path, body);
    const res = await fetch(baseUrl.slice(0, -'/api/v1/commerce'.length) + req.path, { method, headers: req.headers, ...(req.body ? { body: req.body } : {}) });
    return (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  };
  // The orders' variant in the catalog, so they are qualified and scheduled (for later), where
  // PATCH and cancel apply: without it they were rejected, and both measured their 409.
  await prepareOrdering(baseUrl, key);
  await send('PUT', '/customers/c2', { phone: '+4915100000000', locale: 'de-DE', consent: GRANTED, source_version: '1' });
  await send('POST', '/orders', REQUESTS.createOrder!.body!());
  await send('POST', '/orders', { ...(REQUESTS.createOrder!.body!() as object), external_order_id: 'fixed' });
  for (let run = 0; run < RUNS; run++) await send('POST', '/orders', { ...(REQUESTS.createOrder!.body!() as object), external_order_id: `to-cancel-${run}` });
  await send('PUT', '/webhook-subscription', { url: 'http://127.0.0.1:9/hook', event_types: ['commerce.order.result_ready.v1'] });
  listenSessionId = String((await send('POST', '/webhook-listen-sessions', {}))?.listen_session_id);

  const figures: Figure[] = [];
  const costs = new Map<string, { usd: number; minimumUsd: number }>();
  for (const route of ROUTES) {
    const spec = REQUESTS[route.operationId];
    if (!spec) throw new Error(`no cost request for ${route.operationId}`);
    const measured = await measure(baseUrl, key, route.operationId);
    const usd = usdPerMillion(measured, FUNCTION_SETTINGS.apiMemoryMb);
    const minimumUsd = usdPerMillion(
      { readUnits: spec.minimum[0], writeUnits: spec.minimum[1], handlerMs: 1, sqsRequests: spec.sqs ?? 0 },
      FUNCTION_SETTINGS.apiMemoryMb,
    );
    costs.set(route.operationId, { usd, minimumUsd });
    progress(
      `${route.method} ${route.path}: ${measured.status}, ${measured.writeUnits} WCU, ${measured.readUnits} RCU, ${measured.handlerMs.toFixed(1)} ms, $${usd.toFixed(2)}/M`,
    );
    figures.push(
      figure({
        suite: 'cost',
        name: `${route.method} ${route.path}`,
        value: usd,
        unit: 'USD/M calls',
        floor: { value: minimumUsd, label: `API Gateway + Lambda (1 ms) + ${spec.minimum[1]} WCU + ${spec.minimum[0]} RCU` },
        note: `answered ${measured.status}; ${measured.writeUnits} WCU, ${measured.readUnits} RCU, ${measured.handlerMs.toFixed(1)} ms per call (median of ${RUNS})`,
      }),
    );
  }
  const mix = MIX.reduce((sum, [id, share]) => sum + share * costs.get(id)!.usd, 0);
  const mixMinimum = MIX.reduce((sum, [id, share]) => sum + share * costs.get(id)!.minimumUsd, 0);
  figures.push(
    figure({
      suite: 'cost',
      name: 'the load mix (60 % GET order, 20 % POST orders, 10 % list orders, 10 % PUT customer)',
      value: mix,
      unit: 'USD/M calls',
      floor: { value: mixMinimum, label: 'the same mix at its data-model minimum' },
      target: { ratio: 1.5, direction: 'at_most' },
      note: `prices ${PRICES.region} as of ${PRICES.date} (bench/lib/prices.ts); Lambda time is this machine's handler time at ${FUNCTION_SETTINGS.apiMemoryMb} MB; the asynchronous order pipeline is in the orders suite`,
    }),
  );
  return figures;
}
