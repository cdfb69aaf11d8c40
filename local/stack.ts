/**
 * The whole system on one machine with real parts: DynamoDB Local, the fauxqs SQS emulator,
 * the local API gateway and the pollers that run the worker handlers with Lambda's
 * event-source semantics. Used by `npm start` and by the test suite.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { startFauxqs } from 'fauxqs';
import { BASE_PATH } from '#shared/api/routes.ts';
import { WORKERS } from '#functions/workers.ts';
import { EVENT_SOURCES, FUNCTION_SETTINGS } from '#shared/storage/definition.ts';
import { freePort, spawnDynamoDbLocal, stopProcess } from './processes.ts';
import { ensureQueues, ensureTable } from './resources.ts';
import { lambdaContext, loadHandler, loadModule, startGateway } from './gateway.ts';
import type { Reaction } from '#shared/stream/stream-dispatch.ts';
import { startQueuePoller } from './queue-poller.ts';
import { startStreamPoller } from './stream-poller.ts';
import { writeFileAtomic } from './durable-file.ts';
import { type FaultSpec, injectClientFaults, injectedFaults, injectInvocationFaults, parseFaults } from './faults.ts';
import { decorateClients } from '#shared/storage/clients.ts';

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_TABLE = 'commerce-interface';
/** DynamoDB Local and the emulator accept any credentials; static ones avoid the provider chain. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export interface LocalStackOptions {
  /** Directory for DynamoDB Local's data and the stream checkpoint; in memory when absent. */
  dataDir?: string;
  port?: number;
  /** Extra environment for the handlers (e.g. WEBHOOK_BACKOFF_SCALE in tests). */
  env?: Record<string, string>;
  /** How often the reconciler runs; EventBridge runs it every minute on AWS. */
  reconcileEveryMs?: number;
  /** How often the call scheduler runs; EventBridge runs it every minute on AWS. */
  callSweepEveryMs?: number;
  log?: (line: string) => void;
}

export interface LocalStack {
  baseUrl: string;
  port: number;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  env: Record<string, string>;
  /**
   * Resolves once no stream record or queue message has arrived for `quietMs` (the pipeline
   * has worked through its backlog), with how long that took; benchmarks wait for it so one
   * suite's leftovers do not land in the next one's figures.
   */
  settled(options?: { quietMs?: number; timeoutMs?: number }): Promise<number>;
  stop(): Promise<void>;
}

export async function waitForDynamo(endpoint: string, failed: () => boolean): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      if (failed()) throw new Error('DynamoDB Local exited during start-up (is Java 17+ installed?)');
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    client.destroy();
  }
}

/** What the parts of a running stack share: how to stop them, how to tell they are busy, where to log. */
interface Running {
  stopAll: (() => Promise<void>)[];
  activity: (() => number)[];
  log: (line: string) => void;
  /** The fault switch (LOCAL_FAULTS): empty unless asked for. */
  faults: FaultSpec;
}

/**
 * Turns the fault switch on for the functions' own SDK clients, and keeps the count of faults
 * injected in `faults-<pid>.json` in the data directory (a suite reads it across restarts).
 */
function switchFaultsOn(running: Running, dataDir: string | undefined) {
  if (running.faults.size === 0) return;
  decorateClients((service, client) => injectClientFaults(service, client, running.faults.get(service) ?? 0));
  running.log(`LOCAL_FAULTS: ${[...running.faults].map(([name, share]) => `${name} ${share}`).join(', ')}`);
  if (!dataDir) return;
  const file = join(dataDir, `faults-${process.pid}.json`);
  const timer = setInterval(() => writeFileAtomic(file, JSON.stringify(injectedFaults)), 500);
  timer.unref();
  running.stopAll.unshift(async () => {
    clearInterval(timer);
    writeFileAtomic(file, JSON.stringify(injectedFaults));
  });
}

/**
 * The root key API key secrets are derived with locally (no KMS runs here): 32 random bytes
 * kept in the data directory, readable by the owner only, made once and kept across starts.
 */
function ensureKeyRoot(dataDir: string | undefined): string {
  const file = join(dataDir ?? mkdtempSync(join(tmpdir(), 'commerce-keys-')), 'key-root.bin');
  if (!existsSync(file)) writeFileAtomic(file, randomBytes(32).toString('base64'), 0o600);
  return file;
}

/** DynamoDB Local and the SQS emulator, with the table and queues created; their endpoints as the functions' environment. */
async function startResources(running: Running, options: LocalStackOptions, dynamoPort: number) {
  if (options.dataDir) mkdirSync(join(options.dataDir, 'dynamodb'), { recursive: true });
  const dynamo = spawnDynamoDbLocal(dynamoPort, options.dataDir && join(options.dataDir, 'dynamodb'));
  let dynamoExited = false;
  dynamo.once('exit', () => {
    dynamoExited = true;
  });
  const dynamodbEndpoint = `http://127.0.0.1:${dynamoPort}`;
  running.stopAll.push(() => stopProcess(dynamo));
  const sqs = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
  running.stopAll.unshift(async () => sqs.stop());
  const sqsEndpoint = sqs.address;
  await waitForDynamo(dynamodbEndpoint, () => dynamoExited);
  const dynamoClient = new DynamoDBClient({ endpoint: dynamodbEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const sqsClient = new SQSClient({ endpoint: sqsEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const streamArn = await ensureTable(dynamoClient, LOCAL_TABLE);
  const queues = await ensureQueues(sqsClient, 'local');
  const env: Record<string, string> = {
    KEY_SECRETS_ROOT_FILE: ensureKeyRoot(options.dataDir),
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: LOCAL_REGION,
    TABLE_NAME: LOCAL_TABLE,
    DYNAMODB_ENDPOINT: dynamodbEndpoint,
    SQS_ENDPOINT: sqsEndpoint,
    WEBHOOK_QUEUE_URL: queues.webhookQueueUrl,
    WEBHOOK_DLQ_URL: queues.webhookDlqUrl,
    STREAM_FAILURE_QUEUE_URL: queues.streamFailureQueueUrl,
    POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
    ...options.env,
  };
  return { dynamodbEndpoint, sqsEndpoint, dynamoClient, sqsClient, streamArn, queues, env };
}

type Resources = Awaited<ReturnType<typeof startResources>>;

/** Every table-stream worker reads the stream on its own, and the sender the queue, as Lambda's event sources do. */
async function startPollers(running: Running, options: LocalStackOptions, resources: Resources) {
  for (const worker of Object.values(WORKERS).filter((w) => w.trigger === 'table-stream')) {
    const streamHandler = await loadHandler<DynamoDBStreamEvent, DynamoDBBatchResponse>(worker.handler);
    const streamPoller = startStreamPoller({
      endpoint: resources.dynamodbEndpoint,
      region: LOCAL_REGION,
      streamArn: resources.streamArn,
      ...(options.dataDir ? { checkpointFile: join(options.dataDir, `stream-checkpoint-${worker.name}.json`) } : {}),
      handler: injectInvocationFaults(worker.name, running.faults.get(worker.name) ?? 0, (event: DynamoDBStreamEvent) =>
        streamHandler(event, lambdaContext(worker.name, FUNCTION_SETTINGS.workerTimeoutSeconds)),
      ),
      onWarning: (message) => running.log(`${worker.name}: ${message}`),
      onSkip: (records, error) => {
        running.log(`${worker.name}: ${records.length ? 'skipped a record after retries' : 'retrying'}: ${String(error)}`);
        if (records.length) void reportSkippedBatch(resources, worker.name, records).catch(() => undefined);
      },
    });
    running.stopAll.unshift(streamPoller.stop);
    running.activity.push(streamPoller.lastActivityAt);
  }
  const senderHandler = await loadHandler<SQSEvent, SQSBatchResponse>(WORKERS.webhookSender.handler);
  const queuePoller = startQueuePoller({
    client: resources.sqsClient,
    queueUrl: resources.queues.webhookQueueUrl,
    queueArn: `arn:aws:sqs:${LOCAL_REGION}:000000000000:local-webhook-deliveries`,
    region: LOCAL_REGION,
    batchSize: EVENT_SOURCES.webhookQueue.batchSize,
    handler: injectInvocationFaults(WORKERS.webhookSender.name, running.faults.get(WORKERS.webhookSender.name) ?? 0, (event: SQSEvent) =>
      senderHandler(event, lambdaContext(WORKERS.webhookSender.name, FUNCTION_SETTINGS.webhookSenderTimeoutSeconds)),
    ),
    onError: (error) => running.log(`queue poller: ${String(error)}`),
    concurrency: 4,
  });
  running.stopAll.unshift(queuePoller.stop);
  running.activity.push(queuePoller.lastActivityAt);
}

/** The scheduled workers on timers: the reconciler every minute (or as asked), the call scheduler every quarter second. */
async function startSchedules(running: Running, options: LocalStackOptions) {
  // The emulator keeps its messages in memory: after a restart on kept data, every record
  // that waits for a queue message gets it again now (consumers are idempotent per record).
  if (options.dataDir) {
    const { reconcileOverdue, sendToWebhookQueue } = await import('#shared/queue/outbox-queue.ts');
    const { EVERYTHING_DUE } = await import('#shared/storage/due-index.ts');
    // Every record waiting for a message, whenever due; their next due time counts from now.
    const resent = await reconcileOverdue(new Date(), sendToWebhookQueue, EVERYTHING_DUE);
    if (resent) running.log(`re-sent ${resent} queue message(s) lost with the previous run`);
    // Stream records the killed run had not handled may be gone with it: do their pending work
    // now rather than when the reconciler finds it overdue (the reactions are idempotent).
    const { replayOverdueStreamWork } = await import('#shared/stream/stream-work.ts');
    const { reactions } = (await loadModule(WORKERS.streamProcessor.handler)) as { reactions: Reaction[] };
    const { replayed } = await replayOverdueStreamWork(new Date(), reactions, EVERYTHING_DUE);
    if (replayed) running.log(`replayed the stream work of ${replayed} item(s) pending from the previous run`);
  }
  const reconciler = await loadHandler<unknown, unknown>(WORKERS.reconciler.handler);
  // One run at a time, as its reserved concurrency of 1 makes it on AWS: a slow run (a sweep of
  // every due shard under injected faults) is never joined by the next one.
  let reconciling = false;
  const reconcileTimer = setInterval(
    () => {
      if (reconciling) return;
      reconciling = true;
      reconciler({}, lambdaContext(WORKERS.reconciler.name, FUNCTION_SETTINGS.workerTimeoutSeconds))
        .catch((error) => running.log(`reconciler: ${String(error)}`))
        .finally(() => {
          reconciling = false;
        });
    },
    options.reconcileEveryMs ?? FUNCTION_SETTINGS.reconcilerEveryMinutes * 60_000,
  );
  running.stopAll.unshift(async () => clearInterval(reconcileTimer));
  const callScheduler = await loadHandler<unknown, unknown>(WORKERS.callScheduler.handler);
  let sweeping = false;
  const callTimer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    callScheduler({}, lambdaContext(WORKERS.callScheduler.name, FUNCTION_SETTINGS.workerTimeoutSeconds))
      .catch((error) => running.log(`call scheduler: ${String(error)}`))
      .finally(() => {
        sweeping = false;
      });
    // Every second (EventBridge: every minute): a sweep reads all 32 order-due shards, and a due order's own change is handled by the stream at once.
  }, options.callSweepEveryMs ?? 1_000);
  running.stopAll.unshift(async () => clearInterval(callTimer));
}

/** Resolves once no stream or queue batch has been in hand for `quietMs`. */
const settledOf =
  (activity: (() => number)[]) =>
  async ({ quietMs = 3000, timeoutMs = 300_000 } = {}) => {
    const started = Date.now();
    while (Date.now() - Math.max(...activity.map((lastAt) => lastAt())) < quietMs) {
      if (Date.now() - started > timeoutMs) throw new Error(`the pipeline did not settle within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
    return Date.now() - started;
  };

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const running: Running = { stopAll: [], activity: [], log: options.log ?? (() => undefined), faults: parseFaults(options.env?.LOCAL_FAULTS) };
  const stopEverything = async () => {
    for (const stop of running.stopAll) await stop().catch(() => undefined);
  };
  const [dynamoPort, gatewayPort] = await Promise.all([freePort(), options.port ?? freePort()]);
  try {
    const resources = await startResources(running, options, dynamoPort);
    // The handlers run in this process, as one warm Lambda instance each.
    Object.assign(process.env, resources.env);
    switchFaultsOn(running, options.dataDir);
    const server: Server = await startGateway(gatewayPort);
    running.stopAll.unshift(() => new Promise<void>((resolve) => server.close(() => resolve())));
    await startPollers(running, options, resources);
    await startSchedules(running, options);
    let stopped = false;
    return {
      settled: settledOf(running.activity),
      baseUrl: `http://127.0.0.1:${gatewayPort}${BASE_PATH}`,
      port: gatewayPort,
      dynamodbEndpoint: resources.dynamodbEndpoint,
      sqsEndpoint: resources.sqsEndpoint,
      env: resources.env,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await stopEverything();
        resources.dynamoClient.destroy();
        resources.sqsClient.destroy();
      },
    };
  } catch (error) {
    await stopEverything();
    throw error;
  }
}

/** What Lambda sends to a stream event source's on-failure destination: where the skipped records are, never their content. */
async function reportSkippedBatch(resources: Resources, consumer: string, records: DynamoDBRecord[]): Promise<void> {
  const first = records[0]!.dynamodb!;
  const last = records.at(-1)!.dynamodb!;
  const body = {
    requestContext: {
      condition: 'RetryAttemptsExhausted',
      functionArn: `local:${consumer}`,
      approximateInvokeCount: EVENT_SOURCES.tableStream.retryAttempts + 1,
    },
    timestamp: new Date().toISOString(),
    DDBStreamBatchInfo: {
      startSequenceNumber: first.SequenceNumber,
      endSequenceNumber: last.SequenceNumber,
      approximateArrivalOfFirstRecord: new Date((first.ApproximateCreationDateTime ?? 0) * 1000).toISOString(),
      batchSize: records.length,
      streamArn: resources.streamArn,
    },
  };
  await resources.sqsClient.send(new SendMessageCommand({ QueueUrl: resources.queues.streamFailureQueueUrl, MessageBody: JSON.stringify(body) }));
}
