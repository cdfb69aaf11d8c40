/**
 * What the chaos suite reads straight from the runtime's table: an order's whole partition, a
 * tenant's deliveries and open orders. DynamoDB Local gets a new port on every restart, so the
 * endpoint is read from the runtime's `runtime.json` each time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { isPublicEvent } from '#shared/events/event-types.ts';
import { type HistoryEntry, historyEntryOf } from '#shared/orders/order.ts';
import { keys } from '#shared/storage/keys.ts';

const clients = new Map<string, DynamoDBDocumentClient>();
let dataDir = '';
/** Points the reads at the runtime whose data directory this is. */
export const readFrom = (dir: string) => {
  dataDir = dir;
};

function table(): { client: DynamoDBDocumentClient; name: string } {
  const { env } = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as { env: Record<string, string> };
  const endpoint = env.DYNAMODB_ENDPOINT!;
  if (!clients.has(endpoint)) {
    const raw = new DynamoDBClient({ endpoint, region: env.AWS_REGION!, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    clients.set(endpoint, DynamoDBDocumentClient.from(raw));
  }
  return { client: clients.get(endpoint)!, name: env.TABLE_NAME! };
}

async function queryAll(input: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  const { client, name } = table();
  do {
    const page = await client.send(new QueryCommand({ ...input, TableName: name, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** The order, its history, call attempts, result and public events, in one read of its partition. */
export async function orderPartition(tenant: string, id: string) {
  const pk = keys.order(tenant, id).pk;
  const items = await queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true });
  const events = items.filter((i) => i.entity === 'event' && isPublicEvent(String(i.event_type))) as {
    event_id: string;
    event_type: string;
    sk: string;
    occurred_at: string;
    data: Record<string, unknown>;
  }[];
  return {
    order: items.find((i) => i.sk === 'ORDER'),
    history: events.filter((e) => e.event_type === 'commerce.order.status_changed.v1').map(historyEntryOf) as HistoryEntry[],
    attempts: items.filter((i) => i.entity === 'call_attempt') as { attempt: number }[],
    result: items.find((i) => i.entity === 'result') as { business_outcome: string } | undefined,
    events,
  };
}

async function listViews(tenant: string, list: 'ORDERS' | 'DELIVERIES'): Promise<Record<string, unknown>[]> {
  const shards = await Promise.all(
    keys.listShards(tenant, list).map((shard) =>
      queryAll({
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :s',
        ExpressionAttributeValues: { ':s': shard },
        ProjectionExpression: 'list_view',
      }),
    ),
  );
  return shards.flat().map((i) => i.list_view as Record<string, unknown>);
}

export const tenantDeliveries = async (tenant: string) => (await listViews(tenant, 'DELIVERIES')) as { event_id: string; status: string; attempts: number }[];

/** Orders of the tenant not yet in a final state. */
export async function openOrders(tenant: string): Promise<number> {
  return (await listViews(tenant, 'ORDERS')).filter((v) => !['completed', 'cancelled', 'rejected'].includes(String(v.processing_state))).length;
}
