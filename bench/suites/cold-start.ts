/**
 * `cold-start`: every function bundle the CDK app produces, built the same way (esbuild,
 * infra/bundling.ts), in both ways of shipping the AWS SDK: bundled and tree-shaken, or left
 * to the Lambda runtime's copy. Per bundle: size, and its cold start as Lambda runs it (a
 * fresh Node 22 process on one core, with the deployed NODE_OPTIONS, importing the bundle and
 * answering its first invocation), median of 15, against the floor of a bundle holding only a trivial
 * handler and the same AWS SDK clients, cold-started the same way and making the DynamoDB calls
 * the function's first invocation makes: what remains is the function's own start-up.
 *
 * The first invocation makes its AWS calls as a first request does, each answered at once by a
 * loopback stand-in (so the figure holds the SDK's first-call work and no network). An API
 * function is measured twice:
 * - sent a signed request whose key is unknown (the key lookup, then 401), beside a floor
 *   reading one item: its start-up alone;
 * - sent a partner's request signed with a known key (the contract's example body where it has
 *   one), which it authenticates, validates and answers as a new instance answers its first
 *   request (the key's secret derived by KMS, the nonce, tenant configuration, rate window and
 *   idempotency record, then the operation's own reads and writes, which find nothing), beside a
 *   floor making the very calls it made, in order: what a cold start costs the first partner
 *   request, the work a 401 never reaches included.
 * The scheduled workers find nothing due in any of the shards they sweep, beside a floor making
 * the same shard queries (and, with no target, the one-GetItem floor too). The stream and queue
 * workers get an empty batch (they make no call for one) and are held to the one-GetItem floor.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { build } from 'esbuild';
import { ROUTES } from '#functions/routes.ts';
import { WORKERS } from '#functions/workers.ts';
import { functionBuildOptions, functionNodeOptions } from '#infra/bundling.ts';
import { BASE_PATH, fillPath, type Route } from '#shared/api/routes.ts';
import { SCOPES } from '#shared/api/scopes.ts';
import { signRequest } from '#shared/auth/signing.ts';
import { METRICS_NAMESPACE, SERVICE_NAME } from '#shared/observability/metric-names.ts';
import { SHARDS_READ_AT_ONCE } from '#shared/storage/due-index.ts';
import { DUE_INDEXES, keys } from '#shared/storage/keys.ts';
import { type Figure, figure } from '../lib/figures.ts';
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

/** A call the stand-in received: the service's target prefix, the operation and its request JSON. */
interface RecordedCall {
  service: 'DynamoDB_20120810' | 'TrentService' | 'AmazonSQS';
  operation: string;
  json: Record<string, unknown>;
}

/** The document client's command for each DynamoDB operation the functions make (they make every call through it). */
const DOCUMENT_COMMANDS: Record<string, string> = {
  GetItem: 'GetCommand',
  PutItem: 'PutCommand',
  UpdateItem: 'UpdateCommand',
  DeleteItem: 'DeleteCommand',
  Query: 'QueryCommand',
  Scan: 'ScanCommand',
  TransactWriteItems: 'TransactWriteCommand',
  TransactGetItems: 'TransactGetCommand',
  BatchWriteItem: 'BatchWriteCommand',
  BatchGetItem: 'BatchGetCommand',
};

/** Request members that hold DynamoDB attribute values: the document client takes them as plain values. */
const ATTRIBUTE_VALUE_MEMBERS = new Set(['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey']);

/** A DynamoDB request as the document client takes it: every item, key and value unmarshalled, wherever it sits. */
function documentInput(value: unknown, member = ''): unknown {
  if (ATTRIBUTE_VALUE_MEMBERS.has(member)) return unmarshall(value as Record<string, AttributeValue>);
  if (member === 'Keys') return (value as Record<string, AttributeValue>[]).map((key) => unmarshall(key));
  if (Array.isArray(value)) return value.map((v) => documentInput(v));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, documentInput(v, name)]));
}

/** What the floor sends for a recorded call: the client, the command and its input, as a trivial handler would write them. */
interface FloorCall {
  client: 'documents' | 'kms' | 'sqs';
  command: string;
  input: unknown;
}

function floorCall(call: RecordedCall): FloorCall {
  if (call.service === 'TrentService') {
    // On the wire KMS's message is base64; the SDK takes its bytes.
    const input = call.operation === 'GenerateMac' ? { ...call.json, Message: Buffer.from(String(call.json.Message), 'base64') } : call.json;
    return { client: 'kms', command: `${call.operation}Command`, input };
  }
  if (call.service === 'AmazonSQS') return { client: 'sqs', command: `${call.operation}Command`, input: call.json };
  const command = DOCUMENT_COMMANDS[call.operation];
  if (!command) throw new Error(`the replay floor has no document command for DynamoDB ${call.operation}`);
  return { client: 'documents', command, input: documentInput(call.json) };
}

/** `value` as a JavaScript expression: sets and bytes (a string set, a binary attribute, KMS's message) included, which JSON would lose. */
function literal(value: unknown): string {
  if (value instanceof Set) return `new Set(${literal([...value])})`;
  if (value instanceof Uint8Array) return `Buffer.from(${JSON.stringify(Buffer.from(value).toString('base64'))}, 'base64')`;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${literal(v)}`)
      .join(', ')} }`;
  return JSON.stringify(value);
}

/**
 * The floor beside an authenticated first request: a trivial handler with the same SDK clients
 * (DynamoDB through its document client, KMS, SQS) sending, in order, the very calls the
 * function's first request sent, their inputs written in its source as the stand-in received
 * them, after resolving the host names it resolved. It imports only their commands.
 */
function replayFloorSource(calls: readonly FloorCall[], lookups: readonly HostLookup[]) {
  const commands = (client: FloorCall['client']) => [...new Set(calls.filter((c) => c.client === client).map((c) => c.command))].map((c) => `, ${c}`).join('');
  return `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient${commands('documents')} } from '@aws-sdk/lib-dynamodb';
import { KMSClient${commands('kms')} } from '@aws-sdk/client-kms';
import { SQSClient${commands('sqs')} } from '@aws-sdk/client-sqs';
${lookups.length ? "import { lookup } from 'node:dns/promises';" : ''}
const region = process.env.AWS_REGION;
const clients = {
  documents: DynamoDBDocumentClient.from(new DynamoDBClient({ region, endpoint: process.env.DYNAMODB_ENDPOINT })),
  kms: new KMSClient({ region }),
  sqs: new SQSClient({ region, endpoint: process.env.SQS_ENDPOINT }),
};
export const handler = async () => {
${lookups.map(([host, options]) => `  await lookup(${literal(host)}, ${literal(options)}).catch(() => undefined);`).join('\n')}
${calls.map((c) => `  await clients.${c.client}.send(new ${c.command}(${literal(c.input)}));`).join('\n')}
  return { statusCode: 200, body: '${calls.length}' };
};
`;
}

/** The shard queries each scheduled function's first sweep makes: every shard of the due indexes it reads. */
const SWEEP_QUERIES: Record<string, number> = {
  [WORKERS.callScheduler.name]: DUE_INDEXES.orders.shards,
  [WORKERS.reconciler.name]: DUE_INDEXES.queueMessages.shards + DUE_INDEXES.streamWork.shards,
};

/** Imports the bundle, invokes its handler once with the event in COLD_START_EVENT, prints the milliseconds and the answer's status. */
const HARNESS = `
const t = performance.now();
const m = await import(process.argv[1]);
if (typeof m.handler !== 'function') throw new Error('no handler');
const answer = await m.handler(JSON.parse(process.env.COLD_START_EVENT), { awsRequestId: 'cold-start', functionName: 'bench', getRemainingTimeInMillis: () => 10_000 }).catch(() => undefined);
console.log(performance.now() - t, answer?.statusCode ?? '-');
`;

/**
 * The core every start runs on: the last of the machine's, through `taskset` (util-linux), or
 * none where it is missing (the figures' notes say which). Deployed with 512 MB, a function has
 * about a third of one vCPU (1,769 MB is one), so its start never gets a second core for V8's
 * and libuv's background threads. And the two cores of a development machine can differ by half
 * in speed (a trivial handler's import 77–80 ms on one, 112–122 on the other): unpinned, the
 * starts fall into two clusters and a median of 15 lands in either, so the same function can
 * measure 1.21 of its floor in one run and 1.33 in the next. Pinned, every start of a
 * function and of its floor runs on the same core, and the ratio was the same on either core.
 */
const PINNED_CORE = pinnedCore();

function pinnedCore(): number | undefined {
  const core = cpus().length - 1;
  try {
    execFileSync('taskset', ['-c', String(core), 'true'], { stdio: 'ignore' });
    return core;
  } catch {
    return undefined;
  }
}

const PINNING = PINNED_CORE === undefined ? 'unpinned (no taskset)' : `each on CPU ${PINNED_CORE}`;

/** The NODE_OPTIONS every function is deployed with by default. */
const DEPLOYED_NODE_OPTIONS = functionNodeOptions(false) ?? '';

/** A key the stand-in does not hold: its request ends at the key lookup, in a 401. */
const UNKNOWN_KEY = { keyId: 'key_0123456789abcdef01234567', secret: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA' };
/** What the stand-in's KMS answers every GenerateMac with: the known key's secret is derived from it, as the functions derive it. */
const STAND_IN_MAC = Buffer.alloc(32, 7);
/** The key the stand-in holds, with every scope. */
const KNOWN_KEY = { keyId: 'key_known0123456789abcdef0123', secret: STAND_IN_MAC.toString('base64url'), tenant: 'bench' };

interface RequestExample {
  operationId: string;
  path: string;
  body?: unknown;
}

/** The contract's example request of each operation that has one (contract/examples.json): a first request the operation accepts. */
const EXAMPLES = new Map(
  (JSON.parse(readFileSync(join(root, 'contract/examples.json'), 'utf8')) as { requests: RequestExample[] }).requests.map((e) => [e.operationId, e]),
);

/**
 * An API Gateway proxy event for the route, signed like a partner's request: by an unknown key
 * (looking it up is its one DynamoDB call, then 401), or by the stand-in's known key, with the
 * contract's example path and body where it has one, and an Idempotency-Key.
 */
function signedEvent(route: Route, signer: 'unknown key' | 'known key' = 'unknown key') {
  const example = signer === 'known key' ? EXAMPLES.get(route.operationId) : undefined;
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  // An example's path holds its parameters last, encoded: the routes name at most one.
  const pathParameters = Object.fromEntries(names.map((name) => [name, example ? decodeURIComponent(example.path.split('/').at(-1)!) : 'x1']));
  const path = fillPath(route, pathParameters);
  const body = example?.body ? JSON.stringify(example.body) : route.method === 'GET' || route.method === 'DELETE' ? '' : '{}';
  const key = signer === 'known key' ? KNOWN_KEY : UNKNOWN_KEY;
  const headers = signRequest(key, { method: route.method, path, body: Buffer.from(body), nonce: '00000000-0000-4000-8000-000000000000' });
  return {
    httpMethod: route.method,
    path,
    resource: BASE_PATH + route.path,
    headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': 'cold-start-0001' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters,
    requestContext: { requestId: 'cold-start', identity: { sourceIp: '127.0.0.1' } },
    body: body || null,
    isBase64Encoded: false,
  };
}

/** The items the stand-in holds: the known key and its tenant's (default) configuration. */
const STAND_IN_ITEMS = [
  {
    ...keys.apiKey(KNOWN_KEY.keyId),
    entity: 'api_key',
    key_id: KNOWN_KEY.keyId,
    tenant: KNOWN_KEY.tenant,
    scopes: [...SCOPES],
    status: 'active',
    created_at: '2026-01-01T00:00:00Z',
  },
  { ...keys.tenantConfig(KNOWN_KEY.tenant), entity: 'tenant_config', tenant: KNOWN_KEY.tenant },
];

function standInAnswer(service: string, operation: string, json: Record<string, unknown>): unknown {
  if (service === 'TrentService') return { Mac: STAND_IN_MAC.toString('base64'), KeyId: json.KeyId, MacAlgorithm: json.MacAlgorithm };
  if (operation === 'Query' || operation === 'Scan') return { Items: [], Count: 0, ScannedCount: 0 };
  if (operation !== 'GetItem') return {};
  const key = json.Key as { pk: { S: string }; sk: { S: string } };
  const item = STAND_IN_ITEMS.find((i) => i.pk === key.pk.S && i.sk === key.sk.S);
  return item ? { Item: marshall(item) } : {};
}

/**
 * A loopback stand-in for DynamoDB, KMS and SQS that answers at once: it holds only the known
 * key and its tenant's configuration, so every other read finds nothing and every write
 * succeeds. It keeps the calls it receives, for a floor to replay.
 */
async function standIn(): Promise<{ endpoint: string; server: Server; queries: () => number; calls: RecordedCall[] }> {
  const calls: RecordedCall[] = [];
  let queries = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const [service, operation] = String(request.headers['x-amz-target'] ?? '').split('.') as [RecordedCall['service'], string];
      const json = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      calls.push({ service, operation, json });
      if (operation === 'Query') queries++;
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(standInAnswer(service, operation, json)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, queries: () => queries, calls };
}

async function bundle(entry: string, outfile: string, sdk: 'bundled' | 'runtime') {
  await build({ ...functionBuildOptions(sdk === 'runtime' ? ['@aws-sdk/*', '@smithy/*'] : []), entryPoints: [entry], outfile });
  return statSync(outfile).size / 1024;
}

/**
 * Preloaded into a recording start only, never a measured one: it notes each host name the
 * function resolves (`putWebhookSubscription` checks its URL's host is public), for the floor
 * to resolve too. The bundles take `lookup` from the module this patches (node-builtins).
 */
const HOST_LOOKUP_RECORDER = `
const dns = process.getBuiltinModule('node:dns/promises');
const lookup = dns.lookup;
dns.lookup = (host, options) => {
  process.stderr.write('host-lookup ' + JSON.stringify([host, options]) + '\\n');
  return lookup(host, options);
};`;

/** A host name resolved, with the options it was resolved with. */
type HostLookup = [host: string, options: unknown];

/**
 * One fresh process, as Lambda starts one: import the bundle, answer the first invocation, report
 * the time and the answer's status, and, when recording, the host names it resolved.
 */
async function coldStartOnce(
  file: string,
  event: unknown,
  endpoint: string,
  recordLookups = false,
): Promise<{ ms: number; status: string; lookups: HostLookup[] }> {
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
    // KMS as deployed (the HMAC key derives API key secrets), answered by the stand-in.
    KEY_SECRETS_KMS_KEY_ID: 'alias/cold-start',
    AWS_ENDPOINT_URL_KMS: endpoint,
    // Logs and metrics as deployed (infra/stack.ts): a request's "request completed" line and its
    // metrics are written at INFO, to a pipe as on Lambda. Silenced, the first authenticated
    // request of `createOrder` takes about 1.4 ms less than deployed.
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
    POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    COLD_START_EVENT: JSON.stringify(event),
  };
  const recorder = recordLookups ? ['--import', `data:text/javascript,${encodeURIComponent(HOST_LOOKUP_RECORDER)}`] : [];
  const node = [process.execPath, ...recorder, '--input-type=module', '-e', HARNESS, file];
  const [command, ...args] = PINNED_CORE === undefined ? node : ['taskset', '-c', String(PINNED_CORE), ...node];
  const { stdout, stderr } = await promisify(execFile)(command!, args, { env, encoding: 'utf8' });
  const [ms, status] = stdout.trim().split('\n').at(-1)!.split(' ');
  const lookups = [...stderr.matchAll(/^host-lookup (.*)$/gm)].map((m) => JSON.parse(m[1]!) as HostLookup);
  return { ms: Number(ms), status: status!, lookups };
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

/** Functions started between two starts of the floors in a round. */
const FLOOR_EVERY = 5;

/**
 * One round's order of starts, by index (the floors first among the bundles): the floors, then
 * the functions FLOOR_EVERY at a time with the floors again after each group.
 */
function roundOrder(floors: number, bundles: number): number[] {
  const floorStarts = Array.from({ length: floors }, (_, i) => i);
  const order = [...floorStarts];
  for (let first = floors; first < bundles; first += FLOOR_EVERY) {
    for (let i = first; i < Math.min(first + FLOOR_EVERY, bundles); i++) order.push(i);
    order.push(...floorStarts);
  }
  return order;
}

/**
 * Every bundle built first, then cold-started in rounds: each round starts every function once
 * and the floors between them (roundOrder), so the floors' runs span the same minutes as the
 * functions' and a machine that slows down mid-suite slows both (measured once up front, the
 * floor of one run was 45 ms and of the next 58 ms, and every ratio moved with it). A floor
 * started once a round moves between runs more than the functions do (41.3 to 45.0 ms, every
 * ratio by up to 0.08): one floor is every ratio's denominator, so it is started before a
 * round's functions and again after every
 * FLOOR_EVERY of them, and its figure is the median of all those starts.
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
  const { endpoint, server, queries } = await standIn();
  const times = built.map(() => [] as number[]);
  try {
    for (let round = 0; round < RUNS; round++) {
      progress(`  round ${round + 1}/${RUNS}`);
      for (const i of roundOrder(floors.length, built.length)) {
        const entry = built[i]!;
        const before = queries();
        times[i]!.push((await coldStartOnce(entry.file, entry.event, endpoint)).ms);
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
      note: `median over ${RUNS} fresh processes each (${PINNING}), in rounds with the floor's, import and first invocation, NODE_OPTIONS as deployed (${DEPLOYED_NODE_OPTIONS || 'none'}); on this machine, not on Lambda`,
    }),
  ];
}

/** A first request answered past authentication: a refusal for the key (401, 403), the rate limit (429) or a fault (5xx) would measure less than a partner's first request. */
const AUTHENTICATED_ANSWER = /^(2\d\d|404|409|422)$/;

interface AuthenticatedPair {
  name: string;
  status: string;
  calls: readonly RecordedCall[];
  /** Host names it resolved, before or between its calls; the floor resolves them first. */
  lookups: readonly HostLookup[];
  fn: { file: string; event: unknown };
  /** Its trivial handler takes no event: the calls are written in its source. */
  floor: { file: string; size: number };
}

/** Builds the function's bundle, starts it once to record the calls its authenticated first request makes, and builds the floor that replays them. */
async function authenticatedPair(route: Route, stand: Awaited<ReturnType<typeof standIn>>): Promise<AuthenticatedPair> {
  const dir = join(out, 'authenticated');
  const event = signedEvent(route, 'known key');
  const file = join(dir, `${route.operationId}.mjs`);
  await bundle(join(root, route.handler), file, 'bundled');
  stand.calls.length = 0;
  const { status, lookups } = await coldStartOnce(file, event, stand.endpoint, true);
  if (!AUTHENTICATED_ANSWER.test(status)) throw new Error(`${route.operationId} answered its authenticated first request with ${status}`);
  const calls = [...stand.calls];
  const floorCalls = calls.map(floorCall);
  const floorEntry = join(dir, `floor-${route.operationId}.ts`);
  writeFileSync(floorEntry, replayFloorSource(floorCalls, lookups));
  const floorFile = join(dir, `floor-${route.operationId}.mjs`);
  return {
    name: route.operationId,
    status,
    calls,
    lookups,
    fn: { file, event },
    floor: { file: floorFile, size: await bundle(floorEntry, floorFile, 'bundled') },
  };
}

const callSummary = ({ calls, lookups }: AuthenticatedPair) =>
  [...lookups.map(([host]) => `host lookup of ${host}`), ...calls.map((c) => c.operation)].join(', ');

/**
 * Each API function's authenticated first request (SDK bundled, as deployed), beside a floor
 * replaying the calls it made, both started in rounds, one after the other.
 */
async function measureAuthenticated(routes: readonly Route[]): Promise<Figure[]> {
  mkdirSync(join(out, 'authenticated'), { recursive: true });
  const stand = await standIn();
  const pairs: AuthenticatedPair[] = [];
  const times: { fn: number[]; floor: number[] }[] = [];
  try {
    progress(`cold start, authenticated first request: building ${routes.length * 2} bundles`);
    for (const route of routes) pairs.push(await authenticatedPair(route, stand));
    times.push(...pairs.map(() => ({ fn: [] as number[], floor: [] as number[] })));
    for (let round = 0; round < RUNS; round++) {
      progress(`  round ${round + 1}/${RUNS}`);
      for (const [i, pair] of pairs.entries()) {
        times[i]!.fn.push((await coldStartOnce(pair.fn.file, pair.fn.event, stand.endpoint)).ms);
        times[i]!.floor.push((await coldStartOnce(pair.floor.file, {}, stand.endpoint)).ms);
      }
    }
  } finally {
    stand.server.close();
  }
  const measured = pairs.map((pair, i) => ({ pair, init: median(times[i]!.fn), floor: median(times[i]!.floor) }));
  for (const m of measured) progress(`  ${m.pair.name}: ${m.init.toFixed(1)} ms against ${m.floor.toFixed(1)} ms (${m.pair.status}; ${callSummary(m.pair)})`);
  return [
    ...measured.map(({ pair, init, floor }) =>
      figure({
        suite: 'cold-start',
        name: `${pair.name} (SDK bundled): cold start, authenticated first request included`,
        value: init,
        unit: 'ms',
        floor: {
          value: floor,
          label: `trivial handler + the same SDK clients making the same ${pair.calls.length} calls in order${pair.lookups.length ? `, after the same ${pair.lookups.length} host lookup(s)` : ''} (${pair.floor.size.toFixed(0)} KiB)`,
        },
        target: { ratio: 1.25, direction: 'at_most' },
        note: `answered ${pair.status} after ${callSummary(pair)}`,
      }),
    ),
    figure({
      suite: 'cold-start',
      name: 'worst cold start ratio, authenticated first request (SDK bundled)',
      value: Math.max(...measured.map((m) => m.init / m.floor)),
      unit: '× floor',
      note: `median over ${RUNS} fresh processes each (${PINNING}), function and floor one after the other, NODE_OPTIONS as deployed (${DEPLOYED_NODE_OPTIONS || 'none'}); on this machine, not on Lambda`,
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
  const figures = [...(await measureSdkMode('bundled', entries)), ...(await measureSdkMode('runtime', entries)), ...(await measureAuthenticated(ROUTES))];
  rmSync(out, { recursive: true, force: true });
  return figures;
}
