/** Event items written on their own (not with an order change): once per key, whoever writes first. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../storage/clients.ts';
import { succeededUnlessConditionFailed } from '../storage/conditional.ts';
import type { EventRecord } from './outbox.ts';

export async function putEventOnce(item: EventRecord & { pk: string; sk: string }): Promise<void> {
  await succeededUnlessConditionFailed(
    tableClient().send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' })),
  );
}
