/**
 * The structured JSON logger: one JSON line per entry, in the format of Powertools' Logger
 * (`level`, `message`, `timestamp`, `service`, `xray_trace_id`, then the line's keys), INFO on
 * stdout and WARN and ERROR on stderr, at the level Powertools would choose (Lambda's advanced
 * logging controls, else `POWERTOOLS_LOG_LEVEL` or `LOG_LEVEL`, else INFO). These lines replaced
 * Powertools' Logger, of which the functions used three methods: loading it and Powertools'
 * Metrics (metrics.ts) was 3 to 6 % of every function's cold start (README, performance).
 * Log lines carry request id, tenant, route and correlation id; never a secret, signature, phone
 * number or request body (callers log ids and counts only). The per-request keys live in a scope
 * of their own, so requests handled concurrently in one process never lend each other their keys.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { getXRayTraceIdFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import { SERVICE_NAME } from '../observability/metric-names.ts';

type Extra = Record<string, unknown>;

const THRESHOLDS = { DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type Level = keyof typeof THRESHOLDS;

function configuredThreshold(env: NodeJS.ProcessEnv): number {
  const lambdaLevel = env.AWS_LAMBDA_LOG_LEVEL?.toUpperCase() === 'FATAL' ? 'CRITICAL' : env.AWS_LAMBDA_LOG_LEVEL?.toUpperCase();
  for (const level of [lambdaLevel, (env.POWERTOOLS_LOG_LEVEL || env.LOG_LEVEL)?.toUpperCase()]) {
    if (level && level in THRESHOLDS) return THRESHOLDS[level as Level];
  }
  return THRESHOLDS.INFO;
}
const threshold = configuredThreshold(process.env);

/**
 * An error as Powertools renders it (name, where it was thrown, message, stack, cause), with its
 * `code` but none of its other properties: an SDK error can carry the item a condition refused.
 */
function errorFields(error: Error): Extra {
  const thrownAt = error.stack
    ?.split('\n')
    .map((line) => /\(([^()]*?):(\d+?):(\d+?)\)$/.exec(line))
    .find(Boolean);
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    location: thrownAt ? `${thrownAt[1]}:${thrownAt[2]}` : '',
    message: error.message,
    stack: error.stack,
    ...(typeof code === 'string' ? { code } : {}),
    ...(error.cause === undefined ? {} : { cause: error.cause instanceof Error ? errorFields(error.cause) : error.cause }),
  };
}

/** The line's JSON: errors rendered, big integers as text, and an object met again left out (a cycle would make the line unwritable). */
function lineJson(fields: Extra): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(fields, (_key, value: unknown) => {
    if (value instanceof Error) return errorFields(value);
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return undefined;
      seen.add(value);
    }
    return value;
  });
}

function write(level: Level, message: string, keys: Extra): void {
  if (THRESHOLDS[level] < threshold) return;
  const traceId = getXRayTraceIdFromEnv();
  const fields: Extra = { level, message, timestamp: new Date().toISOString(), service: SERVICE_NAME, ...(traceId ? { xray_trace_id: traceId } : {}) };
  // As Powertools: a key without a value (undefined, null, '') is left off the line.
  for (const [key, value] of Object.entries(keys)) if (value !== undefined && value !== null && value !== '') fields[key] = value;
  (level === 'INFO' ? process.stdout : process.stderr).write(`${lineJson(fields)}\n`);
}

/** Where the current request's log keys live. */
interface LogScope {
  readonly concurrent: boolean;
  keys(): Extra | undefined;
  run<T>(keys: Extra, fn: () => T): T;
}

/** One request at a time: its scope replaces the previous request's keys. */
function oneAtATime(): LogScope {
  let current: Extra | undefined;
  return {
    concurrent: false,
    keys: () => current,
    run: (keys, fn) => {
      current = keys;
      return fn();
    },
  };
}

/** Requests side by side: each request's keys follow its own async context. */
function perAsyncContext(): LogScope {
  const storage = new AsyncLocalStorage<Extra>();
  return { concurrent: true, keys: () => storage.getStore(), run: (keys, fn) => storage.run(keys, fn) };
}

/**
 * A Lambda process runs one invocation at a time unless Lambda runs several in it
 * (`AWS_LAMBDA_MAX_CONCURRENCY` is set: Lambda Managed Instances); the local runtime runs every
 * handler in one process and says so (`scopeLogKeysPerAsyncContext`). An AsyncLocalStorage is
 * kept for those two: its first `run` switches on Node 22's promise hooks, which every promise of
 * every later request then pays, and the SDK makes many (an authenticated first request of
 * `createOrder` took 6 to 11 ms longer with them). AWS's own per-invocation store, which
 * Powertools uses (`@aws/lambda-invoke-store`), decides the same way on the same variable.
 */
let scope: LogScope = 'AWS_LAMBDA_MAX_CONCURRENCY' in process.env ? perAsyncContext() : oneAtATime();

/** For a process that handles requests concurrently (the local runtime): each request's keys in its own async context. */
export function scopeLogKeysPerAsyncContext(): void {
  if (!scope.concurrent) scope = perAsyncContext();
}

const withKeys = (extra?: Extra) => ({ ...scope.keys(), ...extra });

export const logger = {
  info: (message: string, extra?: Extra) => write('INFO', message, withKeys(extra)),
  warn: (message: string, extra?: Extra) => write('WARN', message, withKeys(extra)),
  error: (message: string, error?: Error | Extra) => write('ERROR', message, withKeys(error instanceof Error ? { error } : error)),
};

/** Runs `fn` with its own set of log keys (one request, one scope). */
export const withLogScope = <T>(fn: () => T): T => scope.run({}, fn);

/** Adds keys to every later line of the current scope. */
export function appendLogKeys(keys: Extra): void {
  Object.assign(scope.keys() ?? {}, keys);
}
