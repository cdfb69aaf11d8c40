/** Reads of the sparse due-work index (gsi2): every entry of every shard whose due time has passed. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from './clients.ts';
import { DUE_SHARDS } from './keys.ts';

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
