/** Deliveries carry whole event payloads: they expire with their events (35 days) rather than living forever. */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { DELIVERY_RETENTION_SECONDS, enqueueDelivery } from '#shared/webhooks/delivery-store.ts';

describe('delivery records', () => {
  it('expire 35 days after they are created, through the table TTL', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const id = `dlv_${randomUUID().replaceAll('-', '')}`;
    const now = new Date('2026-11-23T12:00:00Z');
    await enqueueDelivery(tenant, id, { event_id: 'evt_x', event_type: 'commerce.order.status_changed.v1' }, '{}', null, now);
    const read = async (key: { pk: string; sk: string }) =>
      (await tableClient().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
    const { pk } = keys.delivery(tenant, id);
    expect(DELIVERY_RETENTION_SECONDS).toBe(35 * 24 * 3600);
    // The record and the payload it sends, written beside it, go together.
    expect((await read(keys.delivery(tenant, id)))?.expires_at).toBe(Math.floor(now.getTime() / 1000) + DELIVERY_RETENTION_SECONDS);
    expect((await read(keys.deliveryPayload(pk)))?.expires_at).toBe(Math.floor(now.getTime() / 1000) + DELIVERY_RETENTION_SECONDS);
  });
});
