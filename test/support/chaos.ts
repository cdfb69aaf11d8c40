/**
 * The chaos suite's parts: a runtime that can be killed and started again at any moment, a
 * partner client that behaves as a careful partner does (one Idempotency-Key per logical call,
 * reused on every retry; Retry-After honoured), and a seeded random source so a run can be
 * repeated (`CHAOS_SEED`).
 */
import { randomUUID } from 'node:crypto';
import { BASE_PATH } from '#shared/api/routes.ts';
import { signRequest } from '#shared/auth/signing.ts';
import { killRuntime, type Runtime, startRuntime } from './runtime.ts';

/** mulberry32: small, fast and good enough to pick faults and moments reproducibly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A runtime that is SIGKILLed and started again on the same data, port and settings; callers wait while it is down. */
export class KillableRuntime {
  private runtime!: Runtime;
  private up: Promise<void> = Promise.resolve();
  kills = 0;
  lastRestartAt = 0;

  private readonly env: Record<string, string>;

  constructor(env: Record<string, string>) {
    this.env = env;
  }

  async start(): Promise<void> {
    this.runtime = await startRuntime(this.env);
    this.lastRestartAt = Date.now();
  }

  get baseUrl(): string {
    return this.runtime.baseUrl;
  }

  /** Resolves once the runtime is up (immediately unless it is being restarted). */
  ready(): Promise<void> {
    return this.up;
  }

  async killAndRestart(): Promise<void> {
    this.kills++;
    this.up = (async () => {
      await killRuntime(this.runtime.child);
      await this.start();
    })();
    await this.up;
  }

  stop(): Promise<void> {
    return killRuntime(this.runtime.child);
  }
}

export interface PartnerKey {
  tenant: string;
  keyId: string;
  secret: string;
}

/** Every answer a partner got, by status, and the answers that were not retryable and not 2xx/4xx. */
export interface AnswerLog {
  statuses: Record<string, number>;
  /** 429 or 503 answered without Retry-After, or a 5xx of any other kind. */
  improper: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One logical partner call: retried with the same Idempotency-Key through network errors (a
 * killed runtime), 429/503 (after Retry-After), a 409 for a request still in progress and a
 * gateway timeout (both with Retry-After), until it gets its answer. Any other 5xx, or one of
 * those without Retry-After, is logged as improper (and retried too).
 */
export async function partnerCall(runtime: KillableRuntime, key: PartnerKey, log: AnswerLog, method: string, path: string, body?: unknown) {
  const idempotencyKey = method === 'GET' ? undefined : randomUUID();
  const raw = body === undefined ? '' : JSON.stringify(body);
  const deadline = Date.now() + 180_000;
  let last = 'nothing';
  for (let attempt = 1; ; attempt++) {
    if (Date.now() > deadline) throw new Error(`${method} ${path}: no answer within 3 minutes; the last was ${last}`);
    await runtime.ready();
    const headers: Record<string, string> = {
      ...signRequest(key, { method, path: BASE_PATH + path, body: raw, nonce: randomUUID() }),
      ...(raw ? { 'Content-Type': 'application/json' } : {}),
      ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
    };
    let res: Response;
    try {
      res = await fetch(runtime.baseUrl + path, { method, headers, ...(raw ? { body: raw } : {}), signal: AbortSignal.timeout(30_000) });
    } catch (error) {
      last = String(error);
      log.statuses.network = (log.statuses.network ?? 0) + 1;
      await sleep(Math.min(2_000, 100 * attempt));
      continue;
    }
    const text = await res.text();
    last = `${res.status} ${text.slice(0, 300)}`;
    log.statuses[res.status] = (log.statuses[res.status] ?? 0) + 1;
    const retryAfter = res.headers.get('retry-after');
    const retryable = res.status === 429 || res.status === 503 || ((res.status === 409 || res.status === 504) && retryAfter !== null);
    if (retryable) {
      if (retryAfter === null) log.improper.push(`${method} ${path}: ${res.status} without Retry-After`);
      await sleep(Number(retryAfter ?? 1) * 1000);
      continue;
    }
    if (res.status >= 500) {
      log.improper.push(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
      await sleep(Math.min(2_000, 100 * attempt));
      continue;
    }
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }
}
