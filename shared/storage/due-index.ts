/** Reads of the sparse due-work index (gsi2): every entry of every shard whose due time has passed. */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from './clients.ts';
import { isConditionFailed } from './conditional.ts';
import { DUE_SHARDS } from './keys.ts';

/** A due time after every real one: "everything due, whenever" (a replay now, a listing of all pending work). */
export const EVERYTHING_DUE = new Date('9999-12-31T00:00:00Z');

/**
 * Items due by `now`, shard by shard and page by page.
 * @param partitionOf the index partition of a shard, e.g. keys.dueShard or keys.orderDueShard
 */

export async function* dueItems<T extends Record<string, unknown>>(partitionOf: (shard: number) => string, now: Date, projection?: string): AsyncGenerator<T> {
  for (let shard = 0; shard < DUE_SHARDS; shard++) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await tableClient().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :shard AND gsi2sk <= :now',
          ExpressionAttributeValues: { ':shard': partitionOf(shard), ':now': now.toISOString() },
          ...(projection ? { ProjectionExpression: projection } : {}),
          ExclusiveStartKey: startKey,
        }),
      );
      yield* (page.Items ?? []) as T[];
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
}

/**
 * Moves an item's due time on to `next`, unless its owner changed it since it was seen: the
 * sweep that wins takes the work, so two sweeps never do it twice, and work whose sweep dies
 * comes due again.
 */
export async function postponeDue(item: Record<string, unknown>, next: Date): Promise<boolean> {
  try {
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: 'SET gsi2sk = :next',
        ConditionExpression: 'gsi2sk = :seen',
        ExpressionAttributeValues: { ':seen': item.gsi2sk, ':next': next.toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}
