/**
 * `cold-start`: every function bundle the CDK app produces, built the same way (esbuild,
 * infra/bundling.ts), in both ways of shipping the AWS SDK: bundled and tree-shaken, or left
 * to the Lambda runtime's copy. Per bundle: size, and its cold start as Lambda runs it (a
 * fresh Node 22 process with the deployed NODE_OPTIONS importing the bundle and answering its
 * first invocation), median of 15, against the floor of a bundle holding only a trivial
 * handler and the same AWS SDK clients, cold-started the same way.
 *
 * The first invocation makes its DynamoDB calls as a first request does, each answered at once
 * by a loopback stand-in that finds nothing (so the figure holds the SDK's first-call work and
 * no network): the floor reads one item; an API function is sent a signed request whose key
 * is unknown (the key lookup, then 401); the scheduled workers find nothing due. The stream
 * and queue workers get an empty batch (they make no call for one).
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
import { figure, type Figure } from '../lib/figures.ts';
import { median, progress } from '../lib/measure.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = join(root, 'bench/.build');
const RUNS = 15;
const SIZE_TARGET_KIB = 500;

const FLOOR_SOURCE = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: process.env.AWS_REGION, endpoint: process.env.DYNAMODB_ENDPOINT }));
const queue = new SQSClient({ region: process.env.AWS_REGION });
export const handler = async () => {
  const item = await documents.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: 'KEY', sk: 'KEY' } })).catch(() => undefined);
  return { statusCode: 200, body: String(Boolean(item && queue)) };
};
`;

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
async function emptyDynamoDb(): Promise<{ endpoint: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume().on('end', () => {
      const operation = String(request.headers['x-amz-target'] ?? '')
        .split('.')
        .at(-1);
      const body = operation === 'Query' || operation === 'Scan' ? { Items: [], Count: 0, ScannedCount: 0 } : {};
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
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

/** A fresh process per run, as Lambda starts one: import the bundle, answer the first invocation, report the time. */
async function coldStartMillis(file: string, entry: Entry, endpoint: string): Promise<number> {
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
    COLD_START_EVENT: JSON.stringify(entry.event),
  };
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', HARNESS, file], { env, encoding: 'utf8' });
    times.push(Number(stdout.trim().split('\n').at(-1)));
  }
  return median(times);
}

interface Entry {
  name: string;
  handler: string;
  /** The first invocation's event. */
  event: unknown;
}

/** One function's bundle size and initialisation, beside the floor of a trivial handler. */
async function measureEntry(entry: Entry, sdk: 'bundled' | 'runtime', floor: { init: number; size: number }, endpoint: string) {
  const file = join(out, sdk, `${entry.name}.mjs`);
  const size = await bundle(join(root, entry.handler), file, sdk);
  const init = await coldStartMillis(file, entry, endpoint);
  progress(`  ${entry.name}: ${size.toFixed(0)} KiB, ${init.toFixed(1)} ms`);
  const figures = [
    figure({
      suite: 'cold-start',
      name: `${entry.name} (SDK ${sdk}): bundle size`,
      value: size,
      unit: 'KiB',
      floor: { value: SIZE_TARGET_KIB, label: 'the 500 KiB target' },
      target: { ratio: 1, direction: 'at_most' },
    }),
    figure({
      suite: 'cold-start',
      name: `${entry.name} (SDK ${sdk}): cold start, first invocation included`,
      value: init,
      unit: 'ms',
      floor: { value: floor.init, label: `trivial handler + the same SDK clients (${floor.size.toFixed(0)} KiB)` },
      target: { ratio: 1.25, direction: 'at_most' },
    }),
  ];
  return { size, ratio: init / floor.init, figures };
}

async function measureSdkMode(sdk: 'bundled' | 'runtime', entries: readonly Entry[], floorEntry: string): Promise<Figure[]> {
  progress(`cold start, SDK ${sdk}: floor`);
  const { endpoint, server } = await emptyDynamoDb();
  const floorFile = join(out, sdk, 'floor.mjs');
  const measured = [];
  try {
    const floor = {
      size: await bundle(floorEntry, floorFile, sdk),
      init: await coldStartMillis(floorFile, { name: 'floor', handler: floorEntry, event: {} }, endpoint),
    };
    for (const entry of entries) measured.push(await measureEntry(entry, sdk, floor, endpoint));
  } finally {
    server.close();
  }
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
      note: `median over ${RUNS} fresh processes each, import and first invocation, NODE_OPTIONS as deployed (${DEPLOYED_NODE_OPTIONS || 'none'}); on this machine, not on Lambda`,
    }),
  ];
}

export async function run(): Promise<Figure[]> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const floorEntry = join(out, 'floor.ts');
  writeFileSync(floorEntry, FLOOR_SOURCE);
  const entries = [
    ...ROUTES.map((r) => ({ name: r.operationId, handler: r.handler, event: signedEvent(r) })),
    ...Object.values(WORKERS).map((w) => ({ name: w.name, handler: w.handler, event: w.trigger === 'schedule' ? {} : { Records: [] } })),
  ];
  const figures = [...(await measureSdkMode('bundled', entries, floorEntry)), ...(await measureSdkMode('runtime', entries, floorEntry))];
  rmSync(out, { recursive: true, force: true });
  return figures;
}
