/**
 * A delivery's queue message is never lost: one made from a stream record leans on the
 * record's retry (a failed send fails the record, and its retry sends again), so it carries no
 * due entry; one made by a request (a replay) carries a due entry the reconciler watches.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { eventually } from '../support/eventually.ts';
import { runtimeConfig } from '#shared/config/runtime.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { enqueueDelivery } from '#shared/webhooks/delivery-store.ts';

const event = { event_id: 'evt_m', event_type: 'commerce.order.status_changed.v1' };
const stored = async (tenant: string, id: string) =>
  (await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.delivery(tenant, id), ConsistentRead: true }))).Item;

describe("a delivery's queue message", () => {
  it('from a stream record: no due entry; a failed send fails the record, and its retry sends the message', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const id = `dlv_${randomUUID().slice(0, 8)}`;
    const config = runtimeConfig() as { webhookQueueUrl: string };
    const queueUrl = config.webhookQueueUrl;
    config.webhookQueueUrl = queueUrl.replace(/[^/]+$/, 'no-such-queue');
    try {
      await expect(enqueueDelivery(tenant, id, event, '{}', null, new Date(), { fromStream: true })).rejects.toThrow();
    } finally {
      config.webhookQueueUrl = queueUrl;
    }
    const item = await stored(tenant, id);
    expect(item?.list_view).toMatchObject({ status: 'queued', attempts: 0 });
    expect(item?.gsi2pk).toBeUndefined();
    // The record's retry: the delivery exists, so only its message goes, and the shared stack's sender attempts it.
    expect(await enqueueDelivery(tenant, id, event, '{}', null, new Date(), { fromStream: true })).toBe(false);
    const attempted = await eventually(
      async () => (await stored(tenant, id))?.list_view as { attempts: number },
      (view) => view.attempts > 0,
    );
    expect(attempted.attempts).toBe(1);
  });

  it('from a request: a due entry the reconciler watches, should the send be lost', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const id = `dlv_${randomUUID().slice(0, 8)}`;
    const config = runtimeConfig() as { webhookQueueUrl: string };
    const queueUrl = config.webhookQueueUrl;
    config.webhookQueueUrl = queueUrl.replace(/[^/]+$/, 'no-such-queue');
    try {
      expect(await enqueueDelivery(tenant, id, event, '{}', 'dlv_original', new Date())).toBe(true);
    } finally {
      config.webhookQueueUrl = queueUrl;
    }
    expect((await stored(tenant, id))?.gsi2pk).toEqual(expect.any(String));
  });
});
