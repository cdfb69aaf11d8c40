/**
 * The client's fetch: signs every attempt (new nonce and timestamp, same body and
 * Idempotency-Key), times each attempt out, and retries what may succeed later: 429, 5xx,
 * a 409 that carries Retry-After (the same key still running) and network errors. It waits
 * Retry-After when given, else full jitter (a random time up to an exponentially growing cap),
 * within a bound on attempts and on total time.
 */
import { randomUUID } from 'node:crypto';
import { CommerceApiError } from './errors.ts';
import { type Credentials, type QueryParameters, signRequest } from './signing.ts';

export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  maxAttempts?: number;
  /** No retry starts later than this after the first attempt, in ms (default 60 000). */
  maxElapsedMs?: number;
  /** Cap of the first jittered wait, doubled for each further one (default 500). */
  baseDelayMs?: number;
  /** Largest jittered wait (default 20 000). */
  maxDelayMs?: number;
}

export interface TransportOptions extends Credentials {
  /** Per attempt, in ms (default 30 000). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** For tests and proxies; the global fetch by default. */
  fetch?: typeof globalThis.fetch;
  /** Source of randomness for the jitter, for tests. */
  random?: () => number;
  /** Names your integration in the service's request logs (User-Agent), e.g. `acme-shop-sync/2.1`; support finds your requests by it. */
  userAgent?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const retryable = (response: Response) => response.status === 429 || response.status >= 500 || (response.status === 409 && response.headers.has('retry-after'));

/** Retry-After in ms: delta-seconds or an HTTP date. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function queryOf(params: URLSearchParams): QueryParameters {
  const query: Record<string, string[]> = {};
  for (const [name, value] of params) query[name] = [...(query[name] ?? []), value];
  return query;
}

export function signedFetch(options: TransportOptions): (request: Request) => Promise<Response> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const random = options.random ?? Math.random;
  const { maxAttempts = 5, maxElapsedMs = 60_000, baseDelayMs = 500, maxDelayMs = 20_000 } = options.retry ?? {};
  const timeoutMs = options.timeoutMs ?? 30_000;

  return async (request) => {
    const body = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
    const url = new URL(request.url);
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      const headers = new Headers(request.headers);
      if (options.userAgent) headers.set('User-Agent', options.userAgent);
      const signed = signRequest(options, { method: request.method, path: url.pathname, query: queryOf(url.searchParams), body, nonce: randomUUID() });
      for (const [name, value] of Object.entries(signed)) headers.set(name, value);
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await fetchImpl(url, {
          method: request.method,
          headers,
          ...(body ? { body } : {}),
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (!retryable(response)) return response;
      } catch (error) {
        failure = error;
      }
      const wait = retryAfterMs(response?.headers.get('retry-after') ?? null) ?? random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
      if (attempt >= maxAttempts || Date.now() - started + wait > maxElapsedMs) {
        if (response) return response;
        const timedOut = failure instanceof Error && failure.name === 'TimeoutError';
        throw new CommerceApiError({
          status: 0,
          code: timedOut ? 'timeout' : 'network_error',
          message: `${request.method} ${url.pathname}: ${timedOut ? `no answer within ${timeoutMs} ms` : 'network error'} after ${attempt} attempt(s)`,
          cause: failure,
        });
      }
      await response?.body?.cancel();
      await sleep(wait);
    }
  };
}
