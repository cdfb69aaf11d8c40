/**
 * The structured JSON logger (Powertools). Log lines carry request id, tenant, route and
 * correlation id; never a secret, signature, phone number or request body (callers log ids
 * and counts only). The per-request keys live in a scope of their own rather than on the
 * shared Logger, so requests handled concurrently in one process never lend each other their
 * keys.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from '../observability/metric-names.ts';

const base = new Logger({ serviceName: SERVICE_NAME });

type Extra = Record<string, unknown>;

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
 * Powertools' logger uses (`@aws/lambda-invoke-store`), decides the same way on the same variable.
 */
let scope: LogScope = 'AWS_LAMBDA_MAX_CONCURRENCY' in process.env ? perAsyncContext() : oneAtATime();

/** For a process that handles requests concurrently (the local runtime): each request's keys in its own async context. */
export function scopeLogKeysPerAsyncContext(): void {
  if (!scope.concurrent) scope = perAsyncContext();
}

const withKeys = (extra?: Extra) => ({ ...scope.keys(), ...extra });

export const logger = {
  info: (message: string, extra?: Extra) => base.info(message, withKeys(extra)),
  warn: (message: string, extra?: Extra) => base.warn(message, withKeys(extra)),
  error: (message: string, error?: Error | Extra) => base.error(message, withKeys(error instanceof Error ? { error } : error)),
};

/** Runs `fn` with its own set of log keys (one request, one scope). */
export const withLogScope = <T>(fn: () => T): T => scope.run({}, fn);

/** Adds keys to every later line of the current scope. */
export function appendLogKeys(keys: Extra): void {
  Object.assign(scope.keys() ?? {}, keys);
}
