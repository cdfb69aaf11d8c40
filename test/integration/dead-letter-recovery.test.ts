/**
 * `recover` after a long outage: each call reads only the dead letters it has still to re-send,
 * so it makes progress however many earlier calls re-sent, while the list of dead-lettered
 * deliveries keeps showing every one of them, each re-sent one with its `recovered_by`.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { decorateClients, tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { listDeliveries } from '#shared/webhooks/delivery-list.ts';
import { recoverDeliveries } from '#shared/webhooks/delivery-ops.ts';
import { writeDelivery } from '../support/deliveries.ts';

/** Index entries the status index (gsi3) returned, over every query since the counter was reset. */
let statusIndexEntries = 0;
decorateClients((service, client) => {
  if (service !== 'dynamodb') return;
  (client as DynamoDBClient).middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const input = args.input as { IndexName?: string };
      if (context.commandName === 'QueryCommand' && input.IndexName === 'gsi3') statusIndexEntries += (result.output as { Count?: number }).Count ?? 0;
      return result;
    },
    { step: 'initialize', name: 'statusIndexReads' },
  );
});

async function deadLetters(tenant: string, count: number) {
  const ids = Array.from({ length: count }, (_, i) => `dlv_dead_${String(i).padStart(2, '0')}_${randomUUID().slice(0, 8)}`);
  for (const id of ids) await writeDelivery(tenant, id, { status: 'dead_lettered' });
  return ids;
}

async function allDeadLettered(tenant: string) {
  const page = await listDeliveries(tenant, 'dead_lettered', { limit: 100 });
  return page.data;
}

describe('recovering dead letters', () => {
  it('reads on each call only the dead letters not re-sent yet, and lists every one of them afterwards', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const ids = await deadLetters(tenant, 12);
    const since = new Date(Date.now() - 60_000);
    const read: number[] = [];
    const resent: number[] = [];
    for (let call = 0; call < 3; call++) {
      statusIndexEntries = 0;
      const { recovered } = await recoverDeliveries(tenant, since, new Date(), { limit: 5 });
      read.push(statusIndexEntries);
      resent.push(recovered.length);
    }
    expect(resent).toEqual([5, 5, 2]);
    expect(read).toEqual([12, 7, 2]);
    statusIndexEntries = 0;
    expect(await recoverDeliveries(tenant, since, new Date(), { limit: 5 })).toEqual({ recovered: [], more: false });
    expect(statusIndexEntries).toBe(0);
    const listed = await allDeadLettered(tenant);
    expect(listed.map((d) => d.delivery_id).sort()).toEqual(ids.sort());
    expect(listed.every((d) => d.recovered_by?.startsWith('dlv_'))).toBe(true);
  });

  it('moves a dead letter re-sent before it had a partition of its own out of the way, once', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const [earlier] = await deadLetters(tenant, 1);
    // As a recovery left it before re-sent dead letters moved: noted, still in the dead-lettered partition.
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.delivery(tenant, earlier!),
        UpdateExpression: 'SET list_view.recovered_by = :replay',
        ExpressionAttributeValues: { ':replay': 'dlv_replay_earlier' },
      }),
    );
    const since = new Date(Date.now() - 60_000);
    expect(await recoverDeliveries(tenant, since, new Date())).toEqual({ recovered: [], more: false });
    statusIndexEntries = 0;
    await recoverDeliveries(tenant, since, new Date());
    expect(statusIndexEntries).toBe(0);
    expect(await allDeadLettered(tenant)).toMatchObject([{ delivery_id: earlier, recovered_by: 'dlv_replay_earlier' }]);
  });
});
