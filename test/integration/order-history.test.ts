/**
 * An order's history lives in its own items (its status events), not in the order item: no
 * number of partner changes can grow the order toward DynamoDB's 400 KB item limit. Inline,
 * about 1,500 PATCH cycles made the order unwritable (PATCH answered 500 from then on).
 */
import { LATER } from '../support/times.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { StoredOrder } from '#shared/orders/order.ts';
import { dynamoOrderRepository, readOrder, writeOrder } from '#shared/orders/order-store.ts';
import { orderCommands } from '#shared/orders/order-commands.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { retryOnRevisionConflict } from '#shared/storage/revision-retry.ts';
import { call } from '../support/stack.ts';
import { customerBody, orderBody, orderTenant, waitForOrder, wholeHistory } from '../support/orders.ts';

const PATCHES = 2_000;

/** What the scheduler does with a validated order; the stream's own scheduler may have done it first. */
async function schedule(tenant: string, id: string): Promise<void> {
  await retryOnRevisionConflict(async () => {
    const order = (await readOrder(tenant, id, true))!;
    if (order.processing_state !== 'validated') return;
    await writeOrder(order, { to: 'scheduled', set: { next_contact_at: LATER } }, new Date());
  });
}

describe('order history', () => {
  it(`stays readable in full and the order writable after ${PATCHES} PATCH cycles`, { timeout: 600_000 }, async () => {
    const key = await orderTenant();
    await call(key, 'PUT', '/customers/patient', { body: customerBody('+491510000000') });
    expect((await call(key, 'POST', '/orders', { body: orderBody('long-lived', 'patient', { contact_not_before: LATER }) })).status).toBe(201);
    await waitForOrder(key, 'long-lived', (o) => o.processing_state === 'scheduled');

    const requalify = async () => ({ to: 'validated' as const, reason: null, substitutions: [] });
    const commands = orderCommands({ orders: dynamoOrderRepository, callPlatform: { cancel: async () => undefined }, requalify });
    for (let n = 2; n <= PATCHES + 1; n++) {
      await commands.patch(key.tenant, 'long-lived', { source_version: String(n), priority: n % 100 }, { now: new Date(), requestId: `req-${n}` });
      await schedule(key.tenant, 'long-lived');
    }

    // Still writable through the API, as a partner would find it.
    const patched = await call(key, 'PATCH', '/orders/long-lived', { body: { source_version: String(PATCHES + 2), priority: 7 } });
    expect(patched.status).toBe(200);
    // The stream's scheduler moves the re-validated order on; compare the history with the order once it rests.
    await waitForOrder(key, 'long-lived', (o) => o.processing_state === 'scheduled' && o.source_version === String(PATCHES + 2));
    const orderPk = keys.order(key.tenant, 'long-lived').pk;
    const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: { pk: orderPk, sk: 'ORDER' }, ConsistentRead: true }));
    expect(Buffer.byteLength(JSON.stringify(marshall(Item!, { convertClassInstanceToMap: true })))).toBeLessThan(4_096);

    const history = await wholeHistory(orderPk, 500);
    // Created, scheduled, then validated and scheduled again per PATCH, and validated once more by the last one.
    expect(history.length).toBeGreaterThanOrEqual(2 + 2 * PATCHES + 1);
    expect(history[0]).toMatchObject({ from: null, to: 'received', revision: 1 });
    expect(history.map((e) => e.from)).toEqual([null, ...history.slice(0, -1).map((e) => e.to)]);
    const order = (await readOrder(key.tenant, 'long-lived', true)) as StoredOrder;
    expect(history.at(-1)).toMatchObject({ to: order.processing_state, revision: order.status_revision });
  });
});
