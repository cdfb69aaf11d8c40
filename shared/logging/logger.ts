/**
 * The structured JSON logger (Powertools). Log lines carry request id, tenant, route and
 * correlation id; never a secret, signature, phone number or request body (callers log ids
 * and counts only). The per-request keys live in an AsyncLocalStorage scope rather than on
 * the shared Logger, so requests handled concurrently in one process (the local gateway)
 * never lend each other their keys.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from '../observability/metric-names.ts';

const base = new Logger({ serviceName: SERVICE_NAME });
const scope = new AsyncLocalStorage<Record<string, unknown>>();

type Extra = Record<string, unknown>;
const withKeys = (extra?: Extra) => ({ ...scope.getStore(), ...extra });

export const logger = {
  info: (message: string, extra?: Extra) => base.info(message, withKeys(extra)),
  warn: (message: string, extra?: Extra) => base.warn(message, withKeys(extra)),
  error: (message: string, error?: Error | Extra) => base.error(message, withKeys(error instanceof Error ? { error } : error)),
};

/** Runs `fn` with its own set of log keys (one request, one scope). */
export const withLogScope = <T>(fn: () => T): T => scope.run({}, fn);

/** Adds keys to every later line of the current scope. */
export function appendLogKeys(keys: Extra): void {
  Object.assign(scope.getStore() ?? {}, keys);
}
