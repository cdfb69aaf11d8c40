/**
 * A delivery's queue message is never lost, and costs a due entry only when it must: one made
 * from a stream record has none while its message was sent, and has one armed (for the
 * reconciler to send it) when the send failed; one made by a request (a replay) always has one.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { enqueueDelivery } from '#shared/webhooks/delivery-store.ts';
import { putSubscription } from '#shared/webhooks/subscription-store.ts';
import { withQueueMissing } from '../support/deliveries.ts';

const event = { event_id: 'evt_m', event_type: 'commerce.order.status_changed.v1' };
const stored = async (tenant: string, id: string) =>
  (await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.delivery(tenant, id), ConsistentRead: true }))).Item;
const ids = () => ({ tenant: `t-${randomUUID().slice(0, 8)}`, id: `dlv_${randomUUID().slice(0, 8)}` });

describe("a delivery's queue message", () => {
  it('from a stream record, sent: no due entry (its endpoint paused, the sender holds it without writing one)', async () => {
    const { tenant, id } = ids();
    await putSubscription(tenant, { url: 'https://hooks.example.com/x', event_types: ['commerce.order.status_changed.v1'], enabled: true }, new Date());
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookSubscription(tenant),
        UpdateExpression: 'SET paused_until = :until',
        ExpressionAttributeValues: { ':until': new Date(Date.now() + 600_000).toISOString() },
      }),
    );
    expect(await enqueueDelivery(tenant, id, event, '{}', null, new Date(), { fromStream: true })).toBe(true);
    await new Promise((r) => setTimeout(r, 1_000));
    const item = await stored(tenant, id);
    expect(item?.list_view).toMatchObject({ status: 'queued', attempts: 0 });
    expect(item?.gsi2pk).toBeUndefined();
  });

  it('from a stream record, its send failed: a due entry armed for the reconciler', async () => {
    const { tenant, id } = ids();
    expect(await withQueueMissing(() => enqueueDelivery(tenant, id, event, '{}', null, new Date(), { fromStream: true }))).toBe(true);
    const item = await stored(tenant, id);
    expect(item?.list_view).toMatchObject({ status: 'queued', attempts: 0 });
    expect(item?.queue_message).toEqual({ body: JSON.stringify({ tenant, delivery_id: id }) });
    expect(item?.gsi2pk).toEqual(expect.any(String));
  });

  it('from a request: a due entry the reconciler watches, should the send be lost', async () => {
    const { tenant, id } = ids();
    expect(await withQueueMissing(() => enqueueDelivery(tenant, id, event, '{}', 'dlv_original', new Date()))).toBe(true);
    expect((await stored(tenant, id))?.gsi2pk).toEqual(expect.any(String));
  });
});
