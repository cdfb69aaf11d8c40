/** Event items written on their own (not with an order change): once per key, whoever writes first. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../storage/clients.ts';
import { succeededUnlessConditionFailed } from '../storage/conditional.ts';
import { withStreamDue } from '../stream/stream-work.ts';
import type { EventRecord } from './outbox.ts';

export async function putEventOnce(item: EventRecord & { pk: string; sk: string }): Promise<void> {
  const Item = withStreamDue(item, new Date(item.occurred_at));
  await succeededUnlessConditionFailed(tableClient().send(new PutCommand({ TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' })));
}
