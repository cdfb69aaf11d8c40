/** Archiving (a tombstone, never a hard delete) for every entity that is listed and archivable. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { tableClient, tableName } from './clients.ts';
import type { ItemKey } from './keys.ts';

/**
 * Marks the item archived (also in its list view) and returns it; an archived item is
 * returned as it is, and a missing one as undefined.
 */
export async function archiveItem<T>(key: ItemKey, now: Date): Promise<T | undefined> {
  try {
    const { Attributes } = await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #status = :archived, archived_at = :at, updated_at = :at, list_view.#status = :archived, list_view.updated_at = :at',
        ConditionExpression: 'attribute_exists(pk) AND #status <> :archived',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':archived': 'archived', ':at': now.toISOString() },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return Attributes as T;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return error.Item ? (unmarshall(error.Item) as T) : undefined;
  }
}
