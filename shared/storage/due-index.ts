/** Reads of the sparse due-work index (gsi2): every entry of every shard whose due time has passed. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from './clients.ts';
import { landed, writeConditionally } from './conditional.ts';
import type { DueIndex } from './keys.ts';

/** A due time after every real one: "everything due, whenever" (a replay now, a listing of all pending work). */
export const EVERYTHING_DUE = new Date('9999-12-31T00:00:00Z');

/** Shards whose first pages a sweep reads at once. */
export const SHARDS_READ_AT_ONCE = 16;

/** Items of a due index (DUE_INDEXES) due by `now`, shard by shard and page by page. */

export async function* dueItems<T extends Record<string, unknown>>(index: DueIndex, now: Date, projection?: string): AsyncGenerator<T> {
  const page = (shard: number, startKey?: Record<string, unknown>) =>
    tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :shard AND gsi2sk <= :now',
        ExpressionAttributeValues: { ':shard': index.partition(shard), ':now': now.toISOString() },
        ...(projection ? { ProjectionExpression: projection } : {}),
        ExclusiveStartKey: startKey,
      }),
    );
  // Most shards hold nothing due: their first pages are read a group at a time.
  for (let first = 0; first < index.shards; first += SHARDS_READ_AT_ONCE) {
    const shards = Array.from({ length: Math.min(SHARDS_READ_AT_ONCE, index.shards - first) }, (_, i) => first + i);
    const firstPages = await Promise.all(shards.map((shard) => page(shard)));
    for (const [i, shard] of shards.entries()) {
      let current = firstPages[i]!;
      yield* (current.Items ?? []) as T[];
      while (current.LastEvaluatedKey) {
        current = await page(shard, current.LastEvaluatedKey);
        yield* (current.Items ?? []) as T[];
      }
    }
  }
}

const postponement = (item: Record<string, unknown>, next: Date) => ({
  TableName: tableName(),
  Key: { pk: item.pk, sk: item.sk },
  UpdateExpression: 'SET gsi2sk = :next',
  ConditionExpression: 'gsi2sk = :seen',
  ExpressionAttributeValues: { ':seen': item.gsi2sk, ':next': next.toISOString() },
});

/**
 * Moves an item's due time on to `next`, unless its owner changed it since it was seen: the
 * sweep that wins takes the work, so two sweeps never do it twice, and work whose sweep dies
 * comes due again.
 */
export function postponeDue(item: Record<string, unknown>, next: Date): Promise<boolean> {
  return landed({ update: postponement(item, next) });
}

/**
 * postponeDue for work that needs the whole item (the index projects only what names the
 * work): the same write answers with the item as it now stands, or undefined when another
 * sweep took the work.
 */
export async function takeDue(item: Record<string, unknown>, next: Date): Promise<Record<string, unknown> | undefined> {
  const taken = await writeConditionally({ update: { ...postponement(item, next), ReturnValues: 'ALL_NEW' } });
  return taken.written ? taken.item : undefined;
}
