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

/** The order, its call attempts, result and event items of its own (a write-back's failure), in one read of its partition. */
export async function orderPartition(tenant: string, id: string) {
  const pk = keys.order(tenant, id).pk;
  const items = await queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true });
  return {
    order: items.find((i) => i.sk === 'ORDER'),
    attempts: items.filter((i) => i.entity === 'call_attempt') as { attempt: number }[],
    result: items.find((i) => i.entity === 'result') as { business_outcome: string; writeback_state?: string } | undefined,
    eventItems: items.filter((i) => i.entity === 'event' && isPublicEvent(String(i.event_type))) as { event_id: string }[],
  };
}

/** A webhook as the receiver took it in: its envelope. */
export interface ReceivedEvent {
  event_id: string;
  event_type: string;
  external_order_id: string | null;
  data: { previous_state?: string | null; processing_state?: string; attempt?: number; result?: unknown };
}

/**
 * What is wrong with one order's events as its receiver got them (each counted once): its state
 * changes must be one unbroken chain from its creation to the state it rests in, with one event
 * per call attempt, and a result event exactly when it has a result. Empty: nothing.
 */
export function orderEventFaults(
  received: readonly ReceivedEvent[],
  order: { state: string; attempts: readonly number[]; hasResult: boolean; eventItems: readonly string[] },
): string[] {
  const faults: string[] = [];
  const unique = [...new Map(received.map((e) => [e.event_id, e])).values()];
  const chain = unique.filter((e) => e.event_type === 'commerce.order.status_changed.v1');
  const firsts = chain.filter((e) => e.data.previous_state === null);
  if (firsts.length !== 1) faults.push(`${firsts.length} creation events`);
  // One chain through every status event: a state may come back (scheduled after a failed
  // attempt), and an event's time is its request's (a cancel may be stamped before the worker's
  // change it followed), so the chain is searched for, not sorted.
  const chainThrough = (at: string | null, left: readonly ReceivedEvent[]): boolean =>
    left.length === 0
      ? at === order.state
      : left.some((e, i) => e.data.previous_state === at && chainThrough(e.data.processing_state ?? null, [...left.slice(0, i), ...left.slice(i + 1)]));
  if (!chainThrough(null, chain)) faults.push(`no chain of its ${chain.length} status events leads from its creation to ${order.state}`);
  const attempts = unique
    .filter((e) => e.event_type === 'commerce.call.attempt_completed.v1')
    .map((e) => Number(e.data.attempt))
    .sort((a, b) => a - b);
  if (attempts.join(',') !== [...order.attempts].sort((a, b) => a - b).join(','))
    faults.push(`attempt events ${attempts.join(',')}, attempts ${order.attempts.join(',')}`);
  const results = unique.filter((e) => e.event_type === 'commerce.order.result_ready.v1').length;
  if (results !== (order.hasResult ? 1 : 0)) faults.push(`${results} result events, ${order.hasResult ? 'a' : 'no'} result`);
  const ids = new Set(unique.map((e) => e.event_id));
  const missingItems = order.eventItems.filter((id) => !ids.has(id));
  if (missingItems.length) faults.push(`events ${missingItems.join(',')} not received`);
  return faults;
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
  // An order's list entry names its state `s` (order-store.ts).
  return (await listViews(tenant, 'ORDERS')).filter((v) => !['completed', 'cancelled', 'rejected'].includes(String(v.s))).length;
}
