/** Archiving (a tombstone, never a hard delete) for every entity that is listed and archivable. */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from './clients.ts';
import type { ItemKey } from './keys.ts';
import { cancelledItem, conditionFailedAt } from './conditional.ts';

/**
 * Marks the item archived (also in its list view) and returns it, writing `consequence` (the
 * work the archive starts) in the same transaction; an archived item is returned as it is,
 * starting nothing again, and a missing one as undefined.
 */
export async function archiveItem<T>(key: ItemKey, now: Date, consequence?: object): Promise<T | undefined> {
  try {
    await tableClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: key,
              UpdateExpression: 'SET #status = :archived, archived_at = :at, updated_at = :at, list_view.#status = :archived, list_view.updated_at = :at',
              ConditionExpression: 'attribute_exists(pk) AND #status <> :archived',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':archived': 'archived', ':at': now.toISOString() },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          ...(consequence ? [{ Put: { TableName: tableName(), Item: consequence } }] : []),
        ],
      }),
    );
  } catch (error) {
    if (!conditionFailedAt(error, 0)) throw error;
    return cancelledItem(error, 0) as T | undefined;
  }
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return Item as T;
}
