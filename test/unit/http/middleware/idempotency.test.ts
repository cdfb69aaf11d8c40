import { IdempotencyItemAlreadyExistsError, IdempotencyItemNotFoundError } from '@aws-lambda-powertools/idempotency';
import { BasePersistenceLayer, type IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import { describe, expect, it } from 'vitest';
import { idempotency, REPLAYED_HEADER } from '#shared/http/middleware/idempotency.ts';
import { problemJson } from '#shared/http/middleware/problem-json.ts';
import { chain, lambdaContext, withState } from './chain.ts';

/** Powertools' persistence contract in memory: one record per key, refused while one exists. */
class MemoryStore extends BasePersistenceLayer {
  readonly records = new Map<string, IdempotencyRecord>();
  protected async _getRecord(key: string) {
    const record = this.records.get(key);
    if (!record) throw new IdempotencyItemNotFoundError();
    return record;
  }
  protected async _putRecord(record: IdempotencyRecord) {
    const existing = this.records.get(record.idempotencyKey);
    if (existing && existing.getStatus() !== 'EXPIRED') throw new IdempotencyItemAlreadyExistsError('exists', existing);
    this.records.set(record.idempotencyKey, record);
  }
  protected async _updateRecord(record: IdempotencyRecord) {
    this.records.set(record.idempotencyKey, record);
  }
  protected async _deleteRecord(record: IdempotencyRecord) {
    this.records.delete(record.idempotencyKey);
  }
}

const principal = { tenant: 'acme', keyId: 'key_a', scopes: [] };
const headers = (key: string | undefined, body = 'a'.repeat(64)) => ({ ...(key ? { 'idempotency-key': key } : {}), 'x-svc-content-sha256': body });

function counter() {
  let executions = 0;
  const handler = async (_e: unknown, { http }: { http: { replay?: object } }) => {
    if (http.replay) return http.replay as never;
    executions++;
    return { statusCode: 201, headers: {}, body: JSON.stringify({ executions }) };
  };
  return { handler, executions: () => executions };
}

describe('the idempotency middleware', () => {
  it('executes a mutation once per key and replays its answer with Idempotent-Replayed', async () => {
    const store = new MemoryStore();
    const { handler, executions } = counter();
    const run = () => chain([withState({ principal, headers: headers('k-1') }), idempotency('POST', () => store)], handler as never)();
    const first = await run();
    const second = await run();
    expect(executions()).toBe(1);
    expect(first.headers?.[REPLAYED_HEADER]).toBeUndefined();
    expect(second).toMatchObject({ statusCode: 201, body: first.body, headers: { [REPLAYED_HEADER]: 'true' } });
  });

  it('never answers a mutation still running at its deadline: it ends, its answer is kept, and a retry replays it', async () => {
    const store = new MemoryStore();
    let executions = 0;
    const slow = async () => {
      executions++;
      await new Promise((r) => setTimeout(r, 150));
      return { statusCode: 200, headers: {}, body: JSON.stringify({ executions }) };
    };
    const deadline = Date.now() + 20;
    const nearItsEnd = { ...lambdaContext, getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) } as never;
    const run = (handler: typeof slow) =>
      chain([withState({ principal, headers: headers('k-rotate') }), idempotency('POST', () => store)], handler as never, nearItsEnd)();
    const first = await run(slow);
    expect(first).toMatchObject({ statusCode: 200, body: '{"executions":1}' });
    const retry = await run(counter().handler as never);
    expect(retry).toMatchObject({ statusCode: 200, body: first.body, headers: { [REPLAYED_HEADER]: 'true' } });
    expect(executions).toBe(1);
  });

  it('answers DynamoDB throttling its claim as 429 with Retry-After, not as an internal error', async () => {
    const throttled = new (class extends MemoryStore {
      protected override async _putRecord(): Promise<void> {
        throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException', $fault: 'client' });
      }
    })();
    const route = { operationId: 'rotateWebhookSecret', path: '/webhook-subscription/secret/rotate' } as never;
    const { handler, executions } = counter();
    const answer = await chain(
      [problemJson(route), withState({ principal, headers: headers('k-throttled') }), idempotency('POST', () => throttled)],
      handler as never,
    )();
    expect(answer.statusCode).toBe(429);
    expect(answer.headers?.['Retry-After']).toBeDefined();
    expect(JSON.parse(answer.body as string).code).toBe('rate_limited');
    expect(executions()).toBe(0);
  });

  it('gives every claim an in-progress expiry, even with no time left, so a request that dies never holds its key for 24 h', async () => {
    const store = new MemoryStore();
    let claimExpiresAt: number | undefined;
    const handler = async () => {
      claimExpiresAt = [...store.records.values()][0]?.inProgressExpiryTimestamp;
      return { statusCode: 201, headers: {}, body: '{}' };
    };
    const out = withState({ principal, headers: headers('k-late') });
    const noTimeLeft = { ...lambdaContext, getRemainingTimeInMillis: () => 0 } as never;
    const started = Date.now();
    await chain([out, idempotency('POST', () => store)], handler as never, noTimeLeft)();
    expect(claimExpiresAt).toBeGreaterThanOrEqual(started + 1_000);
  });

  it('answers 409 payload_mismatch for the same key with another body, without executing', async () => {
    const store = new MemoryStore();
    const { handler, executions } = counter();
    await chain([withState({ principal, headers: headers('k-2') }), idempotency('POST', () => store)], handler as never)();
    const other = chain([withState({ principal, headers: headers('k-2', 'b'.repeat(64)) }), idempotency('POST', () => store)], handler as never);
    await expect(other()).rejects.toMatchObject({ code: 'idempotency_key_reused', reason: 'payload_mismatch' });
    expect(executions()).toBe(1);
  });

  it('forgets a request whose handler failed unexpectedly, so its retry executes', async () => {
    const store = new MemoryStore();
    const failing = chain([withState({ principal, headers: headers('k-3') }), idempotency('POST', () => store)], async () => Promise.reject(new Error('boom')));
    await expect(failing()).rejects.toThrow('boom');
    expect(store.records.size).toBe(0);
    const { handler, executions } = counter();
    await chain([withState({ principal, headers: headers('k-3') }), idempotency('POST', () => store)], handler as never)();
    expect(executions()).toBe(1);
  });

  it('requires Idempotency-Key on a mutation (422 with its pointer) and leaves a GET alone', async () => {
    const store = new MemoryStore();
    await expect(chain([withState({ principal, headers: headers(undefined) }), idempotency('PUT', () => store)])()).rejects.toMatchObject({
      code: 'validation_failed',
      errors: [{ pointer: 'header:Idempotency-Key' }],
    });
    await expect(chain([withState({ principal, headers: headers(undefined) }), idempotency('GET', () => store)])()).resolves.toMatchObject({ statusCode: 200 });
    expect(store.records.size).toBe(0);
  });
});
