/**
 * `cold-start`: every function bundle the CDK app produces, built the same way (esbuild,
 * infra/bundling.ts), in both ways of shipping the AWS SDK: bundled and tree-shaken, or left
 * to the Lambda runtime's copy. Per bundle: size, and its cold start as Lambda runs it (a
 * fresh Node 22 process with the deployed NODE_OPTIONS importing the bundle and answering its
 * first invocation), median of 15, against the floor of a bundle holding only a trivial
 * handler and the same AWS SDK clients, cold-started the same way and making the DynamoDB calls
 * the function's first invocation makes: what remains is the function's own start-up.
 *
 * The first invocation makes its DynamoDB calls as a first request does, each answered at once
 * by a loopback stand-in that finds nothing (so the figure holds the SDK's first-call work and
 * no network): an API function is sent a signed request whose key is unknown (the key lookup,
 * then 401), beside a floor reading one item; the scheduled workers find nothing due in any of
 * the shards they sweep, beside a floor making the same shard queries (and, with no target, the
 * one-GetItem floor too). The stream and queue workers get an empty batch (they make no call for
 * one) and are held to the one-GetItem floor.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { promisify } from 'node:util';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ROUTES } from '#functions/routes.ts';
import { BASE_PATH, fillPath, type Route } from '#shared/api/routes.ts';
import { WORKERS } from '#functions/workers.ts';
import { BUNDLE_OPTIONS, functionNodeOptions, TRACING_MODULES } from '#infra/bundling.ts';
import { signRequest } from '#shared/auth/signing.ts';
import { SHARDS_READ_AT_ONCE } from '#shared/storage/due-index.ts';
import { DUE_INDEXES } from '#shared/storage/keys.ts';
import { figure, type Figure } from '../lib/figures.ts';
import { median, progress } from '../lib/measure.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = join(root, 'bench/.build');
const RUNS = 15;
const SIZE_TARGET_KIB = 500;

/**
 * The floor: a trivial handler with the same AWS SDK clients, making one GetItem, or, beside a
 * scheduled sweep, the same number of shard queries the sweep makes, as many at a time.
 */
const floorSource = (sweepQueries = 0) => `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ${sweepQueries ? 'QueryCommand' : 'GetCommand'} } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: process.env.AWS_REGION, endpoint: process.env.DYNAMODB_ENDPOINT }));
const queue = new SQSClient({ region: process.env.AWS_REGION });
${sweepQueries ? sweepHandler(sweepQueries) : getHandler}
`;

const getHandler = `export const handler = async () => {
  const item = await documents.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: 'KEY', sk: 'KEY' } })).catch(() => undefined);
  return { statusCode: 200, body: String(Boolean(item && queue)) };
};`;

const sweepHandler = (
  queries: number,
) => `const query = (shard) => documents.send(new QueryCommand({ TableName: process.env.TABLE_NAME, IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :shard AND gsi2sk <= :now', ExpressionAttributeValues: { ':shard': 'DUE#' + shard, ':now': new Date().toISOString() } }));
export const handler = async () => {
  let pages = 0;
  for (let first = 0; first < ${queries}; first += ${SHARDS_READ_AT_ONCE}) pages += (await Promise.all(Array.from({ length: Math.min(${SHARDS_READ_AT_ONCE}, ${queries} - first) }, (_, i) => query(first + i)))).length;
  return { statusCode: 200, body: String(pages + Number(Boolean(queue))) };
};`;

/** The shard queries each scheduled function's first sweep makes: every shard of the due indexes it reads. */
const SWEEP_QUERIES: Record<string, number> = {
  [WORKERS.callScheduler.name]: DUE_INDEXES.orders.shards,
  [WORKERS.reconciler.name]: DUE_INDEXES.queueMessages.shards + DUE_INDEXES.streamWork.shards,
};

/** Imports the bundle, invokes its handler once with the event in COLD_START_EVENT, prints the milliseconds. */
const HARNESS = `
const t = performance.now();
const m = await import(process.argv[1]);
if (typeof m.handler !== 'function') throw new Error('no handler');
await m.handler(JSON.parse(process.env.COLD_START_EVENT), { awsRequestId: 'cold-start', functionName: 'bench', getRemainingTimeInMillis: () => 10_000 }).catch(() => undefined);
console.log(performance.now() - t);
`;

/** The NODE_OPTIONS every function is deployed with by default. */
const DEPLOYED_NODE_OPTIONS = functionNodeOptions(false) ?? '';

const BENCH_KEY = { keyId: 'key_0123456789abcdef01234567', secret: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA' };

/** An API Gateway proxy event for the route, signed like a partner's request (its key is unknown, and looking it up is the one DynamoDB call). */
function signedEvent(route: Route) {
  const pathParameters = Object.fromEntries([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1]!, 'x1']));
  const path = fillPath(route, pathParameters);
  const body = route.method === 'GET' || route.method === 'DELETE' ? '' : '{}';
  const headers = signRequest(BENCH_KEY, { method: route.method, path, body: Buffer.from(body), nonce: '00000000-0000-4000-8000-000000000000' });
  return {
    httpMethod: route.method,
    path,
    resource: BASE_PATH + route.path,
    headers: { ...headers, 'content-type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters,
    requestContext: { requestId: 'cold-start', identity: { sourceIp: '127.0.0.1' } },
    body: body || null,
    isBase64Encoded: false,
  };
}

/** A loopback DynamoDB that finds nothing: every read answers empty at once, every write succeeds. */
async function emptyDynamoDb(): Promise<{ endpoint: string; server: Server; queries: () => number }> {
  let queries = 0;
  const server = createServer((request, response) => {
    request.resume().on('end', () => {
      const operation = String(request.headers['x-amz-target'] ?? '')
        .split('.')
        .at(-1);
      if (operation === 'Query') queries++;
      const body = operation === 'Query' || operation === 'Scan' ? { Items: [], Count: 0, ScannedCount: 0 } : {};
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, queries: () => queries };
}

async function bundle(entry: string, outfile: string, sdk: 'bundled' | 'runtime') {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    minify: BUNDLE_OPTIONS.minify,
    format: BUNDLE_OPTIONS.format,
    target: BUNDLE_OPTIONS.target,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    banner: { js: BUNDLE_OPTIONS.banner },
    alias: { ...BUNDLE_OPTIONS.alias },
    // As deployed by default: the tracer only when the stack traces AWS calls.
    external: [...(sdk === 'runtime' ? ['@aws-sdk/*', '@smithy/*'] : []), ...TRACING_MODULES],
    logLevel: 'silent',
  });
  return statSync(outfile).size / 1024;
}

/** One fresh process, as Lambda starts one: import the bundle, answer the first invocation, report the time. */
async function coldStartOnce(file: string, event: unknown, endpoint: string): Promise<number> {
  const env = {
    ...process.env,
    NODE_OPTIONS: DEPLOYED_NODE_OPTIONS,
    TABLE_NAME: 'bench',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_MAX_ATTEMPTS: '1',
    DYNAMODB_ENDPOINT: endpoint,
    SQS_ENDPOINT: endpoint,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
    COLD_START_EVENT: JSON.stringify(event),
  };
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', HARNESS, file], { env, encoding: 'utf8' });
  return Number(stdout.trim().split('\n').at(-1));
}

interface Entry {
  name: string;
  /** The entry file, absolute. */
  handler: string;
  /** The first invocation's event. */
  event: unknown;
}

interface Built extends Entry {
  file: string;
  size: number;
}

/** One function's bundle size and cold start, beside the floor of a trivial handler making the calls its first invocation makes. */
function entryFigures(entry: Built, sdk: 'bundled' | 'runtime', init: number, floor: Floor) {
  progress(`  ${entry.name}: ${entry.size.toFixed(0)} KiB, ${init.toFixed(1)} ms`);
  return [
    figure({
      suite: 'cold-start',
      name: `${entry.name} (SDK ${sdk}): bundle size`,
      value: entry.size,
      unit: 'KiB',
      floor: { value: SIZE_TARGET_KIB, label: 'the 500 KiB target' },
      target: { ratio: 1, direction: 'at_most' },
    }),
    figure({
      suite: 'cold-start',
      name: `${entry.name} (SDK ${sdk}): cold start, first invocation included`,
      value: init,
      unit: 'ms',
      floor: { value: floor.init, label: floorLabel(floor) },
      target: { ratio: 1.25, direction: 'at_most' },
    }),
  ];
}

interface Floor {
  init: number;
  size: number;
  queries: number;
}

const floorLabel = (floor: Floor) =>
  floor.queries
    ? `trivial handler + the same SDK clients making the same ${floor.queries} shard queries, ${SHARDS_READ_AT_ONCE} at a time (${floor.size.toFixed(0)} KiB)`
    : `trivial handler + the same SDK clients, one GetItem (${floor.size.toFixed(0)} KiB)`;

/** Beside a sweep's target figure: the same cold start against the one-GetItem floor of the other functions (no target: the sweep's queries are its work, not its start-up). */
const oneReadFigure = (entry: Built, sdk: 'bundled' | 'runtime', init: number, floor: Floor) =>
  figure({
    suite: 'cold-start',
    name: `${entry.name} (SDK ${sdk}): cold start against a trivial handler making one GetItem`,
    value: init,
    unit: 'ms',
    floor: { value: floor.init, label: floorLabel(floor) },
    note: 'its first invocation sweeps every due shard; the target figure compares it with a trivial handler making those queries',
  });

/**
 * Every bundle built first, then cold-started in rounds: each round starts the floors and then
 * every function once, so the floors' runs span the same minutes as the functions' and a
 * machine that slows down mid-suite slows both (measured once up front, the floor of one run
 * was 45 ms and of the next 58 ms, and every ratio moved with it).
 */
async function measureSdkMode(sdk: 'bundled' | 'runtime', entries: readonly Entry[]): Promise<Figure[]> {
  const sweeps = [...new Set(Object.values(SWEEP_QUERIES))];
  const floors = [0, ...sweeps].map((queries) => ({
    name: queries ? `floor-sweep-${queries}` : 'floor',
    handler: join(out, `floor-${queries}.ts`),
    event: {},
    queries,
  }));
  for (const f of floors) writeFileSync(f.handler, floorSource(f.queries));
  progress(`cold start, SDK ${sdk}: building ${floors.length + entries.length} bundles`);
  const built: Built[] = [];
  for (const entry of [...floors, ...entries]) {
    const file = join(out, sdk, `${entry.name}.mjs`);
    built.push({ ...entry, file, size: await bundle(entry.handler, file, sdk) });
  }
  const { endpoint, server, queries } = await emptyDynamoDb();
  const times = built.map(() => [] as number[]);
  try {
    for (let round = 0; round < RUNS; round++) {
      progress(`  round ${round + 1}/${RUNS}`);
      for (const [i, entry] of built.entries()) {
        const before = queries();
        times[i]!.push(await coldStartOnce(entry.file, entry.event, endpoint));
        const expected = SWEEP_QUERIES[entry.name];
        if (expected !== undefined && queries() - before !== expected)
          throw new Error(`${entry.name} made ${queries() - before} queries, not the ${expected} its floor makes`);
      }
    }
  } finally {
    server.close();
  }
  const floorOf = new Map(floors.map((f, i) => [f.queries, { size: built[i]!.size, init: median(times[i]!), queries: f.queries }]));
  const oneRead = floorOf.get(0)!;
  const measured = built.slice(floors.length).map((entry, i) => {
    const init = median(times[floors.length + i]!);
    const floor = floorOf.get(SWEEP_QUERIES[entry.name] ?? 0)!;
    const figures = entryFigures(entry, sdk, init, floor);
    return { size: entry.size, ratio: init / floor.init, figures: floor === oneRead ? figures : [...figures, oneReadFigure(entry, sdk, init, oneRead)] };
  });
  return [
    ...measured.flatMap((m) => m.figures),
    figure({
      suite: 'cold-start',
      name: `largest bundle (SDK ${sdk})`,
      value: Math.max(...measured.map((m) => m.size)),
      unit: 'KiB',
      floor: { value: SIZE_TARGET_KIB, label: 'the 500 KiB target' },
      target: { ratio: 1, direction: 'at_most' },
    }),
    figure({
      suite: 'cold-start',
      name: `worst cold start ratio (SDK ${sdk})`,
      value: Math.max(...measured.map((m) => m.ratio)),
      unit: '× floor',
      note: `median over ${RUNS} fresh processes each, in rounds with the floor's, import and first invocation, NODE_OPTIONS as deployed (${DEPLOYED_NODE_OPTIONS || 'none'}); on this machine, not on Lambda`,
    }),
  ];
}

export async function run(): Promise<Figure[]> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const entries = [
    ...ROUTES.map((r) => ({ name: r.operationId, handler: join(root, r.handler), event: signedEvent(r) })),
    ...Object.values(WORKERS).map((w) => ({ name: w.name, handler: join(root, w.handler), event: w.trigger === 'schedule' ? {} : { Records: [] } })),
  ];
  const figures = [...(await measureSdkMode('bundled', entries)), ...(await measureSdkMode('runtime', entries))];
  rmSync(out, { recursive: true, force: true });
  return figures;
}
