/** Every item of the table whose partition key starts with `prefix`, read page by page (a scan returns 1 MB a page). */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '#shared/storage/clients.ts';

export async function scanByKeyPrefix(prefix: string): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await tableClient().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': prefix },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    found.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}
