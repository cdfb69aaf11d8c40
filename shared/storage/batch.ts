/** Batch reads and writes with DynamoDB's per-call limits and unprocessed-item retries. */
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../async/concurrency.ts';
import { tableClient, tableName } from './clients.ts';
import { type ItemKey, itemKeyId } from './keys.ts';

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** Calls of a batch read or write in flight at once: a large batch waits for a quarter of its round trips. */
const CALLS_IN_FLIGHT = 4;

const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));

export interface BatchGetOptions {
  /** Only these attributes of each item; its key's come back too, to tell the items apart. */
  attributes?: readonly string[];
  /** Strongly consistent: what the last write stored, for twice the read units. */
  consistent?: boolean;
}

/** The items of `keyList` that exist, in no particular order, 100 keys a call, a few calls at once. */
export async function batchGet<T>(keyList: readonly ItemKey[], options: BatchGetOptions = {}): Promise<T[]> {
  const unique = [...new Map(keyList.map((k) => [itemKeyId(k), k])).values()];
  const projected = options.attributes ? ['pk', 'sk', ...options.attributes] : undefined;
  const projection = projected && {
    ProjectionExpression: projected.map((_, i) => `#p${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(projected.map((name, i) => [`#p${i}`, name])),
  };
  const found: T[] = [];
  await mapWithConcurrency(chunks(unique, 100), CALLS_IN_FLIGHT, async (chunk) => {
    let pending: Record<string, unknown>[] | undefined = chunk as unknown as Record<string, unknown>[];
    for (let attempt = 0; pending?.length; attempt++) {
      if (attempt > 0) await backoff(attempt);
      const request = { Keys: pending, ...projection, ...(options.consistent ? { ConsistentRead: true } : {}) };
      const out = await tableClient().send(new BatchGetCommand({ RequestItems: { [tableName()]: request } }));
      found.push(...((out.Responses?.[tableName()] ?? []) as T[]));
      pending = out.UnprocessedKeys?.[tableName()]?.Keys as Record<string, unknown>[] | undefined;
    }
  });
  return found;
}

/** Writes in chunks of 25, a few chunks in flight at once. */
export async function batchPut(items: readonly Record<string, unknown>[]): Promise<void> {
  await mapWithConcurrency(chunks(items, 25), CALLS_IN_FLIGHT, async (chunk) => {
    let pending = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length; attempt++) {
      if (attempt > 0) await backoff(attempt);
      const out = await tableClient().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
    }
  });
}
