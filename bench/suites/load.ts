/**
 * `load`: autocannon drives a mixed workload of signed requests (a fresh nonce each) through
 * the local gateway for 30 s: 60 % GET /orders/{id}, 20 % POST /orders, 10 % GET /orders,
 * 10 % PUT /customers/{id}. The floor: the same workload's DynamoDB calls issued directly
 * against DynamoDB Local at the same concurrency. Both run with the local pipeline held (issue
 * 26 lets the floor count the pipeline work each POST starts, or the pipeline be quiet during
 * the mix: this is the second): on one machine the qualification and scheduling each POST
 * starts share the two cores and DynamoDB Local with the API it measures, where on AWS they run
 * in functions of their own. The seed orders' pipeline work settles before the mix starts.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import autocannon from 'autocannon';
import type { withPipelineHeld } from '#local/pipeline-hold.ts';
import { BASE_PATH } from '#shared/api/routes.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { type BenchKey, benchTenant, send, signed } from '../lib/client.ts';
import { type Figure, figure } from '../lib/figures.ts';
import { progress } from '../lib/measure.ts';
import { beansOrder, CALL_LATER } from '../lib/ordering.ts';

const DURATION_SECONDS = 30;
const CONNECTIONS = 16;
const ORDERS = 200;

const customer = (i: number) => ({
  phone: `+491510000${String(i % 1000).padStart(4, '0')}`,
  locale: 'de-DE',
  consent: { status: 'granted', proof: { source: 'checkout', reference: 'r', collected_at: '2026-01-01T00:00:00Z' } },
  source_version: String(Date.now()) + String(i).padStart(4, '0'),
});
const order = (id: string) => beansOrder(id, { customer: 'load-0', contact_not_before: CALL_LATER });

/** The mix as a cycle of ten requests, each signed afresh when it is sent. */
function requests(key: BenchKey, unexpected: { count: number }) {
  let n = 0;
  const make = (method: string, path: () => string, body: () => unknown, expected: number) => ({
    method,
    path: BASE_PATH,
    setupRequest: (req: Record<string, unknown>) => {
      const b = body();
      const s = signed(key, method, path(), b);
      return { ...req, method, path: s.path, headers: s.headers, body: s.body || undefined };
    },
    onResponse: (status: number) => {
      if (status !== expected) unexpected.count++;
    },
  });
  const getOrder = () =>
    make(
      'GET',
      () => `/orders/seed-${n++ % ORDERS}`,
      () => undefined,
      200,
    );
  return [
    getOrder(),
    getOrder(),
    getOrder(),
    make(
      'POST',
      () => '/orders',
      () => order(`load-${randomUUID()}`),
      201,
    ),
    getOrder(),
    getOrder(),
    make(
      'GET',
      () => '/orders',
      () => undefined,
      200,
    ),
    getOrder(),
    make(
      'PUT',
      () => `/customers/load-${n % 50}`,
      () => customer(n++),
      200,
    ),
    make(
      'POST',
      () => '/orders',
      () => order(`load-${randomUUID()}`),
      201,
    ),
  ];
}

const putIfAbsent = (pk: string) =>
  tableClient().send(new PutCommand({ TableName: tableName(), Item: { pk, sk: 'X', expires_at: 1 }, ConditionExpression: 'attribute_not_exists(pk)' }));

const markDone = (idem: string) =>
  tableClient().send(
    new UpdateCommand({ TableName: tableName(), Key: { pk: idem, sk: 'X' }, UpdateExpression: 'SET done_at = :t', ExpressionAttributeValues: { ':t': 1 } }),
  );

/** The authorizer's writes: a nonce and the rate window. */
async function floorAuth(tenant: string): Promise<void> {
  await putIfAbsent(`T#${tenant}#NONCE#${randomUUID()}`);
  await tableClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: { pk: `T#${tenant}#RATE#floor`, sk: 'RATE' },
      UpdateExpression: 'ADD request_count :one',
      ExpressionAttributeValues: { ':one': 1 },
    }),
  );
}

async function floorGetOrder(tenant: string): Promise<void> {
  await floorAuth(tenant);
  await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.order(tenant, `seed-${Math.floor(Math.random() * ORDERS)}`) }));
}

async function floorPostOrder(tenant: string): Promise<void> {
  await floorAuth(tenant);
  const idem = `T#${tenant}#IDEM#${randomUUID()}`;
  await putIfAbsent(idem);
  const id = `floor-${randomUUID()}`;
  await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.order(tenant, id), ConsistentRead: true }));
  await tableClient().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: tableName(), Item: { ...keys.order(tenant, id), ...order(id) }, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Put: { TableName: tableName(), Item: { ...keys.orderEvent(keys.order(tenant, id).pk, 1), entity: 'floor' } } },
      ],
    }),
  );
  await markDone(idem);
}

async function floorListOrders(tenant: string): Promise<void> {
  await floorAuth(tenant);
  await Promise.all(
    keys.listShards(tenant, 'ORDERS').map((shard) =>
      tableClient().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: { ':p': shard },
          Limit: 51,
        }),
      ),
    ),
  );
}

async function floorPutCustomer(tenant: string): Promise<void> {
  await floorAuth(tenant);
  const idem = `T#${tenant}#IDEM#${randomUUID()}`;
  await putIfAbsent(idem);
  await tableClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.customer(tenant, `floor-${Math.floor(Math.random() * 50)}`),
      UpdateExpression: 'SET phone = :p',
      ExpressionAttributeValues: { ':p': '+4915100000000' },
    }),
  );
  await markDone(idem);
}

/** What the API does against the table for each request of the mix, issued directly. */
function floorCalls(tenant: string): (() => Promise<unknown>)[] {
  const [get, post, list, put] = [floorGetOrder, floorPostOrder, floorListOrders, floorPutCustomer].map((call) => () => call(tenant));
  return [get!, get!, get!, post!, get!, get!, list!, get!, put!, post!];
}

export async function run(
  baseUrl: string,
  settled: () => Promise<number>,
  held: typeof withPipelineHeld,
): Promise<{ figures: Figure[]; series: Record<string, number[]> }> {
  const key = await benchTenant('bench-load');
  await send(baseUrl, key, 'POST', '/products/batch', {
    products: [
      { external_product_id: 'coffee', title: 'Coffee', source_version: '1', variants: [{ external_variant_id: 'beans', price: '9.99', currency: 'EUR' }] },
    ],
  });
  await send(baseUrl, key, 'PUT', '/customers/load-0', customer(0));
  await mapWithConcurrency(
    Array.from({ length: ORDERS }, (_, i) => i),
    10,
    (i) => send(baseUrl, key, 'POST', '/orders', order(`seed-${i}`)),
  );
  await settled();
  progress(`load: ${DURATION_SECONDS} s, ${CONNECTIONS} connections, the pipeline held`);
  const unexpected = { count: 0 };
  const perSecond: number[] = [];
  const result = await held(
    () =>
      new Promise<autocannon.Result>((resolve, reject) => {
        const instance = autocannon(
          { url: baseUrl.slice(0, -BASE_PATH.length), connections: CONNECTIONS, duration: DURATION_SECONDS, requests: requests(key, unexpected) as never },
          (error, res) => (error ? reject(error) : resolve(res)),
        );
        (instance as unknown as { on(event: 'tick', listener: (tick: { counter: number }) => void): void }).on('tick', (tick) => perSecond.push(tick.counter));
      }),
  );

  await settled();
  progress(`floor: the same DynamoDB calls for ${DURATION_SECONDS} s, the pipeline held`);
  const calls = floorCalls(key.tenant);
  let done = 0;
  await held(async () => {
    const until = Date.now() + DURATION_SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, c) => {
        for (let i = c; Date.now() < until; i += CONNECTIONS) {
          await calls[i % calls.length]!();
          done++;
        }
      }),
    );
  });
  const floorRps = done / DURATION_SECONDS;
  const figures = [
    figure({
      suite: 'load',
      name: `mixed workload, requests per second (${CONNECTIONS} connections, ${DURATION_SECONDS} s)`,
      value: result.requests.average,
      unit: 'req/s',
      floor: { value: floorRps, label: "the workload's DynamoDB calls issued directly, same concurrency (both with the local pipeline held)" },
      target: { ratio: 0.6, direction: 'at_least' },
    }),
    figure({ suite: 'load', name: 'latency p50', value: result.latency.p50, unit: 'ms' }),
    figure({ suite: 'load', name: 'latency p99', value: result.latency.p99, unit: 'ms' }),
    figure({ suite: 'load', name: 'latency p99.9', value: result.latency.p99_9 ?? result.latency.p99, unit: 'ms' }),
    figure({
      suite: 'load',
      name: 'responses other than the expected ones',
      value: unexpected.count + result.errors + result.timeouts,
      unit: 'responses',
      note: 'target: zero',
    }),
  ];
  return { figures, series: { 'load throughput over time': perSecond } };
}
