/**
 * The call scheduler's sweep: orders whose contact time has come (or whose call seems stuck)
 * are advanced, highest priority first. On AWS it runs every minute; the local runtime runs
 * it every quarter second so retries of the sandbox dialer happen at their delay.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../storage/clients.ts';
import { DUE_SHARDS, keys } from '../storage/keys.ts';
import { mapWithConcurrency } from '../support/concurrency.ts';
import { advanceOrder } from './processing.ts';

interface DueOrder {
  tenant: string;
  external_order_id: string;
  priority: number;
  gsi2sk: string;
}

export async function sweepDueOrders(now: Date): Promise<number> {
  const due: DueOrder[] = [];
  for (let shard = 0; shard < DUE_SHARDS; shard++) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await tableClient().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :shard AND gsi2sk <= :now',
          ExpressionAttributeValues: { ':shard': keys.orderDueShard(shard), ':now': now.toISOString() },
          ProjectionExpression: 'tenant, external_order_id, priority, gsi2sk',
          ExclusiveStartKey: startKey,
        }),
      );
      due.push(...((page.Items ?? []) as DueOrder[]));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
  due.sort((a, b) => b.priority - a.priority || (a.gsi2sk < b.gsi2sk ? -1 : 1));
  await mapWithConcurrency(due, 8, (o) => advanceOrder(o.tenant, o.external_order_id));
  return due.length;
}
