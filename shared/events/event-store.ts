/** Event items written on their own (not with an order change): once per key, whoever writes first. */
import { tableName } from '../storage/clients.ts';
import { landed } from '../storage/conditional.ts';
import { withStreamDue } from '../stream/stream-work.ts';
import type { EventRecord } from './outbox.ts';

export async function putEventOnce(item: EventRecord & { pk: string; sk: string }): Promise<void> {
  const Item = withStreamDue(item, new Date(item.occurred_at));
  await landed({ put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' } });
}
