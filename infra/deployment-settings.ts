/**
 * How the stack deploys its functions and its edge: timeouts, memory, schedules, reserved
 * concurrency and the WAF's rate limits. The CDK app deploys them, the local runtime runs its
 * functions and schedules under them, and the benchmarks price them.
 */
import { SENDER_INSTANCES } from '#shared/api/limits.ts';

export const FUNCTION_SETTINGS = {
  apiTimeoutSeconds: 10,
  apiMemoryMb: 512,
  webhookSenderTimeoutSeconds: 60,
  workerTimeoutSeconds: 60,
  workerMemoryMb: 512,
  reconcilerEveryMinutes: 1,
  callSchedulerEveryMinutes: 1,
  /**
   * Concurrency reserved for (and capped at) each worker: a backlog of stream records or
   * deliveries can never starve the API functions of the account's concurrency, nor each other.
   */
  workerReservedConcurrency: {
    'stream-processor': 10,
    'catalog-indexer': 4,
    'webhook-sender': SENDER_INSTANCES,
    reconciler: 1,
    'call-scheduler': 2,
  } as Readonly<Record<string, number>>,
} as const;

/**
 * The WAF's rate-based rules, in requests per 5 minutes. Signed requests count per key id and
 * source address, above the largest rate a key can be granted (10,000 a second): the per-key
 * limit the service itself enforces stays the one a partner meets. Requests without
 * well-formed authentication headers count per source address, low: an anonymous flood never
 * reaches a function, and partners behind one shared address are not counted together. Every
 * request also counts per source address, whatever its headers, above twice the largest rate a
 * key can be granted: made-up key ids of the issued shape cannot buy one host more than that.
 */
export const WAF_RATE_LIMITS_PER_5_MINUTES = { perKeyAndAddress: 3_600_000, unsignedPerAddress: 600, perAddress: 6_000_000 } as const;
