/**
 * `npm start`: the whole system on this machine. Data lives in `.local/` and survives
 * restarts; `--in-memory` gives a throwaway run. Ctrl-C (or SIGTERM) stops every child.
 * Whatever keeps it from starting is one line on stderr and exit status 1.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { localDataDir } from './data-dir.ts';
import { writeFileAtomic } from './durable-file.ts';
import { checkJava, checkPortFree, holdDataFolder, portFrom, StartupProblem } from './preflight.ts';
import { seedSandbox } from './seed.ts';
import type { LocalStack } from './stack.ts';
import { installTerminal } from './terminal.ts';

const localDir = localDataDir();
const inMemory = process.argv.includes('--in-memory');
let releaseDataFolder: () => void = () => undefined;

/** One line for a person; the stack trace of a failure nobody foresaw goes to a file beside the data. */
function cannotStart(error: unknown): never {
  if (error instanceof StartupProblem) console.error(`npm start: ${error.message}`);
  else {
    const details = join(localDir, 'start-error.log');
    try {
      writeFileSync(details, `${new Date().toISOString()}\n${(error as Error).stack ?? String(error)}\n`);
    } catch {
      // The data folder itself may be what failed.
    }
    console.error(`npm start: could not start: ${(error as Error).name}: ${String((error as Error).message).split('\n')[0]} (details in ${details})`);
  }
  releaseDataFolder();
  process.exit(1);
}

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'];

let port: number;
try {
  port = portFrom(process.env.PORT);
  const level = (process.env.LOG_LEVEL ?? 'INFO').toUpperCase();
  if (!LOG_LEVELS.includes(level))
    throw new StartupProblem(`LOG_LEVEL=${process.env.LOG_LEVEL} is not a level: one of ${LOG_LEVELS.join(', ')}, for example LOG_LEVEL=WARN npm start`);
  // The handlers' own level, unless the Powertools variable is set outright.
  process.env.POWERTOOLS_LOG_LEVEL ??= level;
  const format = process.env.LOG_FORMAT ?? 'text';
  if (format !== 'text' && format !== 'json') throw new StartupProblem(`LOG_FORMAT=${format} is not a format: text (the default) or json`);
  installTerminal({ format, metricsFile: process.env.LOCAL_METRICS_FILE });
  checkJava();
  mkdirSync(localDir, { recursive: true });
  releaseDataFolder = holdDataFolder(localDir, port);
  await checkPortFree(port);
} catch (error) {
  cannotStart(error);
}

// A partner's receiver during development is on this machine: the local runtime accepts
// loopback and private webhook URLs unless told otherwise (a deployment never does).
process.env.WEBHOOK_ALLOW_PRIVATE_URLS = process.env.WEBHOOK_ALLOW_PRIVATE_URLS === 'false' ? 'false' : 'true';
if (process.env.WEBHOOK_ALLOW_PRIVATE_URLS === 'true') {
  console.warn(
    'WARNING: webhook URLs on private and loopback addresses are accepted (local use only; WEBHOOK_ALLOW_PRIVATE_URLS=false applies the deployed rules).',
  );
}

// Loaded after the checks, which then answer at once rather than after the SDKs and handlers load.
const { startLocalStack } = await import('./stack.ts');
const stack: LocalStack = await startLocalStack({
  ...(inMemory ? {} : { dataDir: localDir }),
  port,
  ...(process.env.LOCAL_RECONCILE_EVERY_SECONDS ? { reconcileEveryMs: Number(process.env.LOCAL_RECONCILE_EVERY_SECONDS) * 1000 } : {}),
  env: Object.fromEntries(
    [
      'AUTH_CACHE_SECONDS',
      'WEBHOOK_ALLOW_PRIVATE_URLS',
      'WEBHOOK_BACKOFF_SCALE',
      'WEBHOOK_TIMEOUT_SCALE',
      'CALL_RETRY_DELAY_SECONDS',
      'VARIANT_INDEX_GRACE_SECONDS',
      'STREAM_RECOVERY_SECONDS',
      'QUEUE_REDELIVERY_GRACE_SECONDS',
      'WEBHOOK_DISABLE_AFTER_SECONDS',
      'CALL_STUCK_AFTER_SECONDS',
      'CALL_PLATFORM',
      'CONNECT_ENDPOINT',
      'LOCAL_FAULTS',
      'POWERTOOLS_LOG_LEVEL',
    ]
      .filter((name) => process.env[name] !== undefined)
      .map((name) => [name, process.env[name]!]),
  ),
  log: (line) => console.error(line),
}).catch(cannotStart);

const runtimeFile = join(localDir, 'runtime.json');
writeFileAtomic(
  runtimeFile,
  JSON.stringify(
    { pid: process.pid, base_url: stack.baseUrl, dynamodb_endpoint: stack.dynamodbEndpoint, sqs_endpoint: stack.sqsEndpoint, env: stack.env },
    null,
    2,
  ),
);
const credentialsFile = join(localDir, 'credentials.json');
const credentials = await seedSandbox(credentialsFile, stack.baseUrl, stack.eventsEndpoint).catch(async (error) => {
  await stack.stop();
  return cannotStart(error);
});

console.log(`Commerce Interface v1 is running at ${stack.baseUrl}`);
console.log(`  reference: http://127.0.0.1:${stack.port}/docs`);
console.log(`  tenant: sandbox, key id: ${credentials.key_id} (secret in ${credentialsFile})`);
console.log(`  DynamoDB Local: ${stack.dynamodbEndpoint}   SQS emulator: ${stack.sqsEndpoint}`);
console.log(inMemory ? '  data: in memory (--in-memory)' : `  data: ${localDir}`);
console.log('Press Ctrl-C to stop.');

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping…`);
  await stack.stop();
  rmSync(runtimeFile, { force: true });
  releaseDataFolder();
  process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal));
// If whatever started us dies without passing a signal on, stop rather than linger as an orphan.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void shutdown('parent exited');
}, 1000).unref();
