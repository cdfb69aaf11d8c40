/** Archiving (a tombstone, never a hard delete) for every entity that is listed and archivable. */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from './clients.ts';
import { cancelledItem, conditionFailedAt } from './conditional.ts';
import { type ItemKey, keys, type ListName } from './keys.ts';

/** How archiving moves an item in the list indexes: to the archived partition, and out of the filter partitions. */
export interface IndexMove {
  set: Record<string, string>;
  remove: readonly string[];
}

/** The move of every archivable list item (products, rules): into its list's archived partition, out of the facet index. */
export const archivedIndexes = (tenant: string, list: ListName, id: string): IndexMove => ({
  set: { gsi1pk: keys.listEntry(tenant, list, id, id, ['archived']).gsi1pk },
  remove: ['gsi3pk', 'gsi3sk'],
});

/**
 * Marks the item archived (also in its list view) and returns it, writing `consequence` (the
 * work the archive starts) in the same transaction; an archived item is returned as it is,
 * starting nothing again, and a missing one as undefined.
 */
export async function archiveItem<T>(key: ItemKey, now: Date, indexes: IndexMove, consequence?: object): Promise<T | undefined> {
  const moves = Object.keys(indexes.set).map((_, i) => `#ix${i} = :ix${i}`);
  const removes = indexes.remove.length ? ` REMOVE ${indexes.remove.join(', ')}` : '';
  try {
    await tableClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: key,
              UpdateExpression: `SET ${['#status = :archived, archived_at = :at, updated_at = :at, list_view.#status = :archived, list_view.updated_at = :at', ...moves].join(', ')}${removes}`,
              ConditionExpression: 'attribute_exists(pk) AND #status <> :archived',
              ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(Object.keys(indexes.set).map((name, i) => [`#ix${i}`, name])) },
              ExpressionAttributeValues: {
                ':archived': 'archived',
                ':at': now.toISOString(),
                ...Object.fromEntries(Object.values(indexes.set).map((value, i) => [`:ix${i}`, value])),
              },
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
