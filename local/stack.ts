/**
 * The whole system on one machine with real parts: DynamoDB Local, the fauxqs SQS emulator,
 * the local API gateway and the pollers that run the worker handlers with Lambda's
 * event-source semantics. Used by `npm start` and by the test suite.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { ConnectContactFlowEvent, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { startFauxqs } from 'fauxqs';
import { ROUTES } from '#functions/routes.ts';
import { LIVE_CALL_FUNCTIONS, WORKERS } from '#functions/workers.ts';
import { FUNCTION_SETTINGS } from '#infra/deployment-settings.ts';
import { meterEveryTableClient } from '#local/metering/capacity-meter.ts';
import { BASE_PATH } from '#shared/api/routes.ts';
import { DEFAULT_CONCURRENT_CALLS } from '#shared/config/runtime.ts';
import { scopeLogKeysPerAsyncContext } from '#shared/logging/logger.ts';
import { decorateClients, withoutSdkLogging } from '#shared/storage/clients.ts';
import { unpoolSockets } from './client-decorators.ts';
import { type SimulatedCalls, simulateCalls } from './connect-calls.ts';
import type { FlowDocument } from './connect-flow.ts';
import { type ConnectStandIn, startConnectStandIn } from './connect-stand-in.ts';
import {
  type Deployment,
  type EventSourceSettings,
  localConnectContext,
  localDeployment,
  localFunctionArn,
  queueSettings,
  synthesizedTemplate,
  type Template,
} from './deployment.ts';
import { writeFileAtomic } from './durable-file.ts';
import { eventRoutes, type LocalEventBus, startLocalEventBus } from './event-bus.ts';
import { teachFairQueues } from './fair-queues.ts';
import { count as countFault, type FaultSpec, injectedFaults, injectInvocationFaults, parseFaults } from './faults.ts';
import { functionEnvironment, type LocalAws, operatorEnvironment } from './function-environment.ts';
import { type FunctionHosts, startFunctionHosts } from './function-hosts.ts';
import { startGateway } from './gateway.ts';
import type { PolicyStatement } from './iam.ts';
import { asFunction } from './invocation.ts';
import { enforcePermissions, permissionCheckFrom, permissionData } from './permissions.ts';
import { pipelineHeld, pipelineReleasedAt, withPipelineHeld } from './pipeline-hold.ts';
import { portProblem, StartupProblem } from './preflight.ts';
import { freePort, spawnDynamoDbLocal, stopProcess } from './processes.ts';
import { startQueuePoller } from './queue-poller.ts';
import { ensureQueues, ensureTable, releaseAbandonedReceives } from './resources.ts';
import { startStreamPoller } from './stream-poller.ts';

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
  /**
   * Changes a function's policy before the runtime enforces it (a test takes an action out to
   * show the suite notices). Every function runs under its synthesized policy otherwise.
   */
  editPolicy?: (functionName: string, statements: PolicyStatement[]) => PolicyStatement[];
  /** Changes a function's environment before its thread starts (a test takes a variable out to show the runtime notices). */
  editEnvironment?: (functionName: string, environment: Record<string, string>) => Record<string, string>;
}

export interface LocalStack {
  baseUrl: string;
  port: number;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  env: Record<string, string>;
  /** What every function runs under, read from the synthesized template. */
  deployment: Deployment;
  /** Every AWS call a function made that its policy refused (`function action resource`); a suite expects none. */
  refusedCalls: readonly string[];
  /** Every `function action` a function was allowed and used. */
  usedActions: ReadonlySet<string>;
  /** The settings the pollers were started with, by function name (a test compares them with the template). */
  pollerSettings: Record<string, EventSourceSettings>;
  /**
   * Resolves once no stream record or queue message has arrived for `quietMs` (the pipeline
   * has worked through its backlog), with how long that took; benchmarks wait for it so one
   * suite's leftovers do not land in the next one's figures.
   */
  settled(options?: { quietMs?: number; timeoutMs?: number }): Promise<number>;
  /**
   * Runs `work` with the pipeline held (pollers read nothing new, schedules start nothing): a
   * benchmark measures a request's own work without the pipeline's work for it on the same cores.
   */
  withPipelineHeld<T>(work: () => Promise<T>): Promise<T>;
  /** The local EventBridge bus (`PutEvents`), routing by the template's rules. */
  eventsEndpoint: string;
  /** With CALL_PLATFORM=connect and no CONNECT_ENDPOINT of its own: the Connect stand-in, its calls and the bus they publish to. */
  connect?: { standIn: ConnectStandIn; calls: SimulatedCalls; bus: LocalEventBus };
  stop(): Promise<void>;
}

/** The handler module of a deployed function: its route's, or its worker's. */
function handlerOf(functionName: string): string {
  const handler =
    ROUTES.find((r) => r.operationId === functionName)?.handler ??
    [...Object.values(WORKERS), ...Object.values(LIVE_CALL_FUNCTIONS)].find((w) => w.name === functionName)?.handler;
  if (!handler) throw new Error(`The template deploys ${functionName}, which neither the route table nor the worker table names`);
  return handler;
}

/** How many server errors in a row from a DynamoDB Local that answers mean it cannot read its files. */
const SERVER_ERRORS_OF_DAMAGED_DATA = 5;

/**
 * Resolves once DynamoDB Local answers. One that answers only with server errors cannot read
 * its files: with a data folder, that is said as what to delete.
 */
export async function waitForDynamo(endpoint: string, failed: () => boolean, dataDir?: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  const deadline = Date.now() + 60_000;
  let serverErrors = 0;
  try {
    for (;;) {
      if (failed()) throw new StartupProblem('DynamoDB Local exited while starting (is Java 17 or later installed?)');
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch (error) {
        serverErrors = (error as { $fault?: string }).$fault === 'server' ? serverErrors + 1 : 0;
        if (dataDir && serverErrors >= SERVER_ERRORS_OF_DAMAGED_DATA)
          throw new StartupProblem(
            `DynamoDB Local cannot read its data in ${dataDir} (damaged): delete that folder to start afresh (the tables in it are lost), or point LOCAL_DATA_DIR at another`,
          );
        if (Date.now() > deadline) throw new StartupProblem(`DynamoDB Local did not answer within 60 s (${(error as Error).name})`);
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
  pollerSettings: Record<string, EventSourceSettings>;
}

/**
 * Says which faults the switch injects (each function's thread injects them into its own
 * clients), and keeps the count of faults injected in `faults-<pid>.json` in the data directory
 * (a suite reads it across restarts).
 */
function keepFaultCounts(running: Running, dataDir: string | undefined) {
  if (running.faults.size === 0) return;
  running.log(`LOCAL_FAULTS: ${[...running.faults].map(([name, share]) => `${name} ${share}`).join(', ')}`);
  if (dataDir) keepWritten(running, join(dataDir, `faults-${process.pid}.json`), () => injectedFaults);
}

/** Keeps `value()` written to `file` every 500 ms and when the runtime stops: a suite reads it across restarts and kills. */
function keepWritten(running: Running, file: string, value: () => unknown) {
  const timer = setInterval(() => writeFileAtomic(file, JSON.stringify(value())), 500);
  timer.unref();
  running.stopAll.unshift(async () => {
    clearInterval(timer);
    writeFileAtomic(file, JSON.stringify(value()));
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

/**
 * Runs `start` with every server it opens bound to 127.0.0.1. fauxqs (2.4.1) listens on
 * 0.0.0.0 whatever host it is given, which would let anyone on the network read and plant
 * queue messages; its `listen` call is pointed at loopback while it starts.
 */
export async function onLoopback<T>(start: () => Promise<T>): Promise<T> {
  const listen = NetServer.prototype.listen;
  NetServer.prototype.listen = function (this: NetServer, ...args: unknown[]) {
    const [first] = args;
    if (first && typeof first === 'object' && 'host' in first) (first as { host: string }).host = '127.0.0.1';
    return (listen as (...a: unknown[]) => NetServer).apply(this, args);
  } as typeof listen;
  try {
    return await start();
  } finally {
    NetServer.prototype.listen = listen;
  }
}

/** DynamoDB Local and the SQS emulator, with the table and queues created; the deployment read against them. */
async function startResources(running: Running, options: LocalStackOptions, dynamoPort: number, template: Template, connectInstanceArn?: string) {
  running.log('starting DynamoDB Local and the SQS emulator…');
  if (options.dataDir) mkdirSync(join(options.dataDir, 'dynamodb'), { recursive: true });
  const dynamo = spawnDynamoDbLocal(dynamoPort, options.dataDir && join(options.dataDir, 'dynamodb'));
  let dynamoExited = false;
  dynamo.once('exit', () => {
    dynamoExited = true;
  });
  const dynamodbEndpoint = `http://127.0.0.1:${dynamoPort}`;
  running.stopAll.push(() => stopProcess(dynamo));
  await teachFairQueues();
  // With a data directory the emulator keeps its messages there, as SQS keeps them: a kill loses none.
  const sqsData = options.dataDir && join(options.dataDir, 'sqs');
  if (sqsData) releaseAbandonedReceives(sqsData);
  const sqs = await onLoopback(() => startFauxqs({ port: 0, host: '127.0.0.1', logger: false, ...(sqsData ? { dataDir: sqsData } : {}) }));
  running.stopAll.unshift(async () => sqs.stop());
  const sqsEndpoint = sqs.address;
  running.log('waiting for DynamoDB Local (Java) to answer…');
  await waitForDynamo(dynamodbEndpoint, () => dynamoExited, options.dataDir && join(options.dataDir, 'dynamodb'));
  const dynamoClient = new DynamoDBClient({ endpoint: dynamodbEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const sqsClient = new SQSClient({ endpoint: sqsEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const { tableArn, streamArn } = await ensureTable(dynamoClient, LOCAL_TABLE);
  const queues = await ensureQueues(sqsClient, sqsEndpoint, 'local', queueSettings(template));
  const standIns = { tableArn, streamArn, queues: queues.byConstructId, connectInstanceArn };
  const deployment = localDeployment(template, standIns);
  const aws: LocalAws = { region: LOCAL_REGION, dynamodbEndpoint, sqsEndpoint, keyRootFile: ensureKeyRoot(options.dataDir) };
  // The runtime's own knobs, given to the functions as functionEnvironment says (the Connect stand-in's endpoint and the reference page's address join them).
  const knobs: Record<string, string> = { POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN', ...options.env };
  const env: Record<string, string> = {
    ...operatorEnvironment(deployment),
    KEY_SECRETS_ROOT_FILE: aws.keyRootFile,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: LOCAL_REGION,
    DYNAMODB_ENDPOINT: dynamodbEndpoint,
    SQS_ENDPOINT: sqsEndpoint,
    STREAM_FAILURE_QUEUE_URL: queues.streamFailureQueueUrl,
    ...knobs,
  };
  const permissions = permissionData(deployment, standIns, options.editPolicy);
  const check = permissionCheckFrom(permissions);
  return { dynamodbEndpoint, sqsEndpoint, dynamoClient, sqsClient, streamArn, queues, env, aws, knobs, deployment, permissions, check };
}

type StartedResources = Awaited<ReturnType<typeof startResources>>;
type Resources = StartedResources & { hosts: FunctionHosts };

/** A function of the template as a handler the pollers and schedules call: one Lambda invocation each, in the function's own thread. */
const invoker =
  <E, R>(resources: Resources, functionName: string) =>
  (event: E) =>
    resources.hosts.invoke(functionName, event) as Promise<R>;

const mappingOf = (resources: Resources, functionName: string): EventSourceSettings => {
  const mapping = resources.deployment.eventSources.find((m) => m.functionName === functionName);
  if (!mapping) throw new Error(`The template has no event source mapping for ${functionName}`);
  return mapping;
};

/** Every table-stream worker reads the stream on its own, and the sender the queue, as Lambda's event sources do (with the function's role). */
async function startPollers(running: Running, options: LocalStackOptions, resources: Resources) {
  for (const worker of Object.values(WORKERS).filter((w) => w.trigger === 'table-stream')) {
    const mapping = mappingOf(resources, worker.name);
    running.pollerSettings[worker.name] = mapping;
    const streamPoller = asFunction(worker.name, () =>
      startStreamPoller({
        endpoint: resources.dynamodbEndpoint,
        region: LOCAL_REGION,
        streamArn: resources.streamArn,
        settings: mapping,
        decorateClient: (client: DynamoDBStreamsClient) => enforcePermissions('dynamodb', client, resources.check),
        ...(options.dataDir ? { checkpointFile: join(options.dataDir, `stream-checkpoint-${worker.name}.json`) } : {}),
        handler: injectInvocationFaults(
          worker.name,
          running.faults.get(worker.name) ?? 0,
          invoker<DynamoDBStreamEvent, DynamoDBBatchResponse>(resources, worker.name),
        ),
        onWarning: (message) => running.log(`${worker.name}: ${message}`),
        onSkip: (records, error) => {
          running.log(`${worker.name}: ${records.length ? 'skipped a record after retries' : 'retrying'}: ${String(error)}`);
          if (records.length) void reportSkippedBatch(resources, mapping, worker.name, records).catch(() => undefined);
        },
      }),
    );
    running.stopAll.unshift(streamPoller.stop);
    running.activity.push(streamPoller.lastActivityAt);
  }
  await startQueueWorker(running, resources, WORKERS.webhookSender);
}

/** A queue-triggered function, fed by a poller with Lambda's SQS event-source semantics (receiving and deleting with the function's role). */
async function startQueueWorker(running: Running, resources: Resources, worker: { name: string; handler: string }) {
  const mapping = mappingOf(resources, worker.name);
  running.pollerSettings[worker.name] = mapping;
  const queue = resources.queues.byConstructId[mapping.source]!;
  const pollerClient = withoutSdkLogging(new SQSClient({ endpoint: resources.sqsEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }));
  enforcePermissions('sqs', pollerClient, resources.check);
  const queuePoller = asFunction(worker.name, () =>
    startQueuePoller({
      client: pollerClient,
      queueUrl: queue.Ref,
      queueArn: queue.Arn,
      region: LOCAL_REGION,
      batchSize: mapping.batchSize,
      ...(mapping.maxConcurrency ? { maxConcurrency: mapping.maxConcurrency } : {}),
      handler: injectInvocationFaults(worker.name, running.faults.get(worker.name) ?? 0, invoker<SQSEvent, SQSBatchResponse>(resources, worker.name)),
      onError: (error) => running.log(`queue poller: ${String(error)}`),
    }),
  );
  running.stopAll.unshift(async () => {
    await queuePoller.stop();
    pollerClient.destroy();
  });
  running.activity.push(queuePoller.lastActivityAt);
}

/**
 * A scheduled worker on a timer (EventBridge's rule on AWS), never more runs at once than its
 * reserved concurrency allows (a slow run is not joined by the next one beyond it).
 */
async function schedule(
  running: Running,
  resources: Resources,
  worker: (typeof WORKERS)[keyof typeof WORKERS],
  everyMs: number,
  options: {
    /** Work of the worker's already under way (the start-up's reconciliation): it holds a slot until it ends. */
    underWay?: Promise<unknown> | undefined;
    /** What each run is invoked with (EventBridge's rule target input). */
    event?: unknown;
  } = {},
) {
  const { underWay, event = {} } = options;
  const run = invoker<unknown, unknown>(resources, worker.name);
  const limit = resources.deployment.functions.get(worker.name)!.reservedConcurrency ?? Number.POSITIVE_INFINITY;
  // One at a time locally even where more are reserved: overlapping sweeps of one process only contend with each other.
  const concurrent = Math.min(limit, 1);
  let runs = underWay ? 1 : 0;
  void underWay?.finally(() => runs--);
  const timer = setInterval(() => {
    if (runs >= concurrent || pipelineHeld()) return;
    runs++;
    run(event)
      .catch((error) => running.log(`${worker.name}: ${String(error)}`))
      .finally(() => {
        runs--;
      });
  }, everyMs);
  running.stopAll.unshift(async () => clearInterval(timer));
}

/**
 * After a restart on kept data: every record that waits for a queue message gets it again (the
 * emulator keeps its messages in the data directory, but a due entry's message may have been
 * on its way when the run was killed), and stream work the killed run left pending (its
 * stream records may be gone with it) is done now rather than when the reconciler finds it
 * overdue (consumers and reactions are idempotent). The reconciler's own work under its role,
 * in the background: a large backlog (hundreds of orders in flight when a run was killed) must
 * not hold the start-up, and the scheduled reconciler waits for it as its reserved concurrency of 1 would.
 */
async function reconcileAfterRestart(running: Running, resources: Resources): Promise<void> {
  const { resent, replayed } = (await resources.hosts.call(WORKERS.reconciler.name, 'local/restart-reconciliation.ts', 'reconcileAfterRestart')) as {
    resent: number;
    replayed: number;
  };
  if (resent) running.log(`re-sent ${resent} queue message(s) lost with the previous run`);
  if (replayed) running.log(`replayed the stream work of ${replayed} item(s) pending from the previous run`);
}

/** The scheduled workers on timers: the reconciler every minute (or as asked), the call scheduler every second. */
async function startSchedules(running: Running, options: LocalStackOptions, resources: Resources) {
  const restart = options.dataDir
    ? reconcileAfterRestart(running, resources).catch((error) =>
        running.log(`${WORKERS.reconciler.name}: reconciliation after the restart failed: ${String(error)}`),
      )
    : undefined;
  await schedule(running, resources, WORKERS.reconciler, options.reconcileEveryMs ?? FUNCTION_SETTINGS.reconcilerEveryMinutes * 60_000, { underWay: restart });
  // Every second (EventBridge: every minute): a sweep skip-scans the 32 order-due shards, and a due order's own change is handled by the stream at once.
  // As EventBridge's rule tells the call scheduler when its next run starts, so does this schedule.
  const sweepEveryMs = options.callSweepEveryMs ?? 1_000;
  await schedule(running, resources, WORKERS.callScheduler, sweepEveryMs, { event: { sweep_seconds: sweepEveryMs / 1000 } });
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

const runningOf = (options: LocalStackOptions): Running => ({
  stopAll: [],
  activity: [pipelineReleasedAt],
  log: options.log ?? (() => undefined),
  faults: parseFaults(options.env?.LOCAL_FAULTS),
  pollerSettings: {},
});

/**
 * Each function in a thread of its own, with its own environment, policy, fault switch and meter;
 * the operator's clients in this process are held to a function's policy only where they act as
 * its event source (the pollers).
 */
function startFunctions(running: Running, options: LocalStackOptions, started: StartedResources, costMetering: boolean): FunctionHosts {
  // Bench runs only: every DynamoDB call's units, billed as DynamoDB would (the functions carry no meter).
  if (costMetering) meterEveryTableClient();
  decorateClients((service, client) => enforcePermissions(service, client as never, started.check));
  decorateClients((_service, client) => unpoolSockets(client));
  const edit = options.editEnvironment ?? ((_name: string, env: Record<string, string>) => env);
  const hosts = startFunctionHosts({
    functions: [...started.deployment.functions.values()].map((fn) => ({
      name: fn.name,
      handler: handlerOf(fn.name),
      timeoutSeconds: fn.timeoutSeconds,
      memoryMb: fn.memoryMb,
      environment: edit(fn.name, functionEnvironment(fn, started.deployment, started.aws, started.knobs)),
    })),
    permissions: started.permissions,
    check: started.check,
    faults: running.faults,
    costMetering,
    log: running.log,
  });
  running.stopAll.push(hosts.stop);
  return hosts;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const running = runningOf(options);
  const stopEverything = async () => {
    for (const stop of running.stopAll) await stop().catch(() => undefined);
  };
  const liveCalls = (options.env?.CALL_PLATFORM ?? process.env.CALL_PLATFORM) === 'connect';
  const connectContext = liveCalls ? localConnectContext({ ...process.env, ...options.env }) : undefined;
  const [dynamoPort, gatewayPort, template] = await Promise.all([freePort(), options.port ?? freePort(), synthesizedTemplate(connectContext ?? {})]);
  try {
    const started = await startResources(running, options, dynamoPort, template, connectContext?.connectInstanceArn);
    const bus = await startEventBus(running, started, template);
    const connectStandIn = connectContext ? await startConnectParts(running, started, options, connectContext) : undefined;
    // Problems link their code's entry on the reference page this gateway serves, unless the template names another.
    started.knobs.REFERENCE_URL = started.env.REFERENCE_URL ??= `http://127.0.0.1:${gatewayPort}/docs`;
    // The operator's tools beside the runtime (a test's setup, the benchmarks) reach the local resources as the functions do.
    Object.assign(process.env, started.env);
    scopeLogKeysPerAsyncContext();
    const costMetering = started.env.COST_METERING === 'true';
    const hosts = startFunctions(running, options, started, costMetering);
    const resources: Resources = { ...started, hosts };
    keepFaultCounts(running, options.dataDir);
    // Every call a function's policy refused, as `function action resource`: a suite running `npm start` expects none.
    if (options.dataDir) keepWritten(running, join(options.dataDir, `refused-${process.pid}.json`), () => resources.check.refused);
    running.log('starting the gateway, the pollers and the schedules…');
    const server: Server = await startGateway(gatewayPort, resources.deployment, { costMetering, invoke: hosts.invoke }).catch(
      (error: NodeJS.ErrnoException) => {
        throw portProblem(gatewayPort, error);
      },
    );
    running.stopAll.unshift(() => new Promise<void>((resolve) => server.close(() => resolve())));
    await startPollers(running, options, resources);
    if (liveCalls) await startQueueWorker(running, resources, LIVE_CALL_FUNCTIONS.contactEvents);
    const calls = connectStandIn && (await playCalls(running, resources, connectStandIn, bus, connectContext!.connectInstanceArn!));
    await startSchedules(running, options, resources);
    let stopped = false;
    return {
      settled: settledOf(running.activity),
      withPipelineHeld,
      baseUrl: `http://127.0.0.1:${gatewayPort}${BASE_PATH}`,
      port: gatewayPort,
      dynamodbEndpoint: resources.dynamodbEndpoint,
      sqsEndpoint: resources.sqsEndpoint,
      env: resources.env,
      deployment: resources.deployment,
      refusedCalls: resources.check.refused,
      usedActions: resources.check.used,
      pollerSettings: running.pollerSettings,
      eventsEndpoint: bus.endpoint,
      ...(connectStandIn && calls ? { connect: { standIn: connectStandIn, calls, bus } } : {}),
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

/** The local EventBridge bus, routing to the queues the template's rules target. */
async function startEventBus(running: Running, resources: StartedResources, template: Template): Promise<LocalEventBus> {
  const queueArnOf = (logicalId: string) => {
    const constructId = String(template.Resources[logicalId]?.Metadata?.['aws:cdk:path'] ?? '').split('/')[1] ?? '';
    const queue = resources.queues.byConstructId[constructId];
    if (!queue) throw new Error(`an event rule targets ${logicalId}, which is not a queue of the template`);
    return queue.Arn;
  };
  const queueUrlOf = (arn: string) => Object.values(resources.queues.byConstructId).find((q) => q.Arn === arn)!.Ref;
  const bus = await startLocalEventBus({ routes: eventRoutes(template, queueArnOf), sqs: resources.sqsClient, queueUrlOf, region: LOCAL_REGION });
  running.stopAll.unshift(bus.close);
  return bus;
}

/** Amazon Connect for live tenants: CONNECT_ENDPOINT where one is given (another stand-in), else the local stand-in. */
async function startConnectParts(
  running: Running,
  resources: StartedResources,
  options: LocalStackOptions,
  context: Record<string, string>,
): Promise<ConnectStandIn | undefined> {
  const given = options.env?.CONNECT_ENDPOINT ?? process.env.CONNECT_ENDPOINT;
  if (given) {
    resources.knobs.CONNECT_ENDPOINT = resources.env.CONNECT_ENDPOINT = given;
    return undefined;
  }
  // The instance's quota and allowlist as the platform team sets them up: the quota the stack is told of, each market's country allowed.
  const allowed = options.env?.CONNECT_ALLOWED_COUNTRIES ?? process.env.CONNECT_ALLOWED_COUNTRIES;
  const standIn = await startConnectStandIn({
    concurrentCalls: Number(context.connectConcurrentCalls ?? DEFAULT_CONCURRENT_CALLS),
    allowedCountries: allowed ? allowed.split(',').map((c) => c.trim()) : Object.keys(JSON.parse(context.connectCallerIds!) as object),
  });
  running.stopAll.unshift(standIn.close);
  resources.knobs.CONNECT_ENDPOINT = resources.env.CONNECT_ENDPOINT = standIn.endpoint;
  running.log(`Amazon Connect stand-in at ${standIn.endpoint}: live tenants' calls are played by the sandbox scenarios' customers`);
  return standIn;
}

/** The stand-in's contacts played through the deployed flow, the dialog function invoked under its timeout and policy, as Connect invokes it. */
async function playCalls(running: Running, resources: Resources, standIn: ConnectStandIn, bus: LocalEventBus, instanceArn: string): Promise<SimulatedCalls> {
  const dialog = LIVE_CALL_FUNCTIONS.dialog;
  const run = invoker<ConnectContactFlowEvent, unknown>(resources, dialog.name);
  const calls = simulateCalls({
    standIn,
    flow: resources.deployment.contactFlow as FlowDocument,
    instanceArn,
    eventsEndpoint: bus.endpoint,
    region: LOCAL_REGION,
    invokeDialog: (functionArn, event, timeLimitMs) => {
      if (functionArn !== localFunctionArn(dialog.name)) return Promise.reject(new Error(`the flow invokes ${functionArn}, which is not the dialog function`));
      let timer: NodeJS.Timeout | undefined;
      const timeLimit = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("the dialog function did not answer within the flow's time limit")), timeLimitMs);
      });
      return Promise.race([run(event), timeLimit]).finally(() => clearTimeout(timer));
    },
    log: running.log,
    onFault: countFault,
  });
  // The fault switch reaches Connect's contact events too: `contact-events-drop`, `-duplicate` and `-reorder` shares.
  Object.assign(calls.faults, {
    drop: running.faults.get('contact-events-drop') ?? 0,
    duplicate: running.faults.get('contact-events-duplicate') ?? 0,
    reorder: running.faults.get('contact-events-reorder') ?? 0,
  });
  running.stopAll.unshift(async () => calls.stop());
  running.activity.push(() => (calls.inFlight() > 0 ? Date.now() : 0));
  return calls;
}

/** What Lambda sends to a stream event source's on-failure destination: where the skipped records are, never their content. */
async function reportSkippedBatch(resources: Resources, mapping: EventSourceSettings, consumer: string, records: DynamoDBRecord[]): Promise<void> {
  if (!mapping.onFailureDestination) return;
  const destination = Object.values(resources.queues.byConstructId).find((q) => q.Arn === mapping.onFailureDestination);
  const first = records[0]!.dynamodb!;
  const last = records.at(-1)!.dynamodb!;
  const body = {
    requestContext: {
      condition: 'RetryAttemptsExhausted',
      functionArn: `local:${consumer}`,
      approximateInvokeCount: (mapping.retryAttempts ?? 0) + 1,
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
  await resources.sqsClient.send(new SendMessageCommand({ QueueUrl: destination!.Ref, MessageBody: JSON.stringify(body) }));
}
