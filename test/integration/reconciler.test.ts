import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { dueAttributes, type QueueMessage, reconcileOverdue, sendToWebhookQueue } from '#shared/queue/outbox-queue.ts';
import { queueRedeliveryGraceSeconds, tableClient, tableName } from '#shared/storage/clients.ts';
import { EVERYTHING_DUE } from '#shared/storage/due-index.ts';

/**
 * The reconciler sweeps every record of the shared stack, other test files' deliveries too:
 * their messages go to the queue as the real reconciler's would, only this file's are kept.
 */
const keepingOwn = (own: (body: string) => boolean, kept: QueueMessage[]) => async (m: QueueMessage) =>
  own(m.body) ? void kept.push(m) : sendToWebhookQueue(m);

/** This file's made-up messages (not deliveries): never sent to the shared stack's queue. */
const ownBodies = new Set(['later']);

describe('the reconciler: nothing lives only in a queue', () => {
  it('re-sends the message of a record whose due time passed, once, and moves its due time on', async () => {
    const pk = `T#reconcile#DELIVERY#${randomUUID()}`;
    const body = JSON.stringify({ delivery_id: pk });
    ownBodies.add(body);
    const now = new Date();
    const notYetDue = `T#reconcile#DELIVERY#${randomUUID()}`;
    await tableClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: { pk: notYetDue, sk: 'DELIVERY', ...dueAttributes(notYetDue, new Date(now.getTime() + 60_000), { body: 'later' }) },
      }),
    );

    // The shared stack's own reconciler sweeps every minute; should its sweep take the record
    // between the write and ours, the record is armed again (its next sweep is a minute away).
    const sent: QueueMessage[] = [];
    for (let tries = 0; tries < 3 && !sent.some((m) => m.body === body); tries++) {
      await tableClient().send(
        new PutCommand({ TableName: tableName(), Item: { pk, sk: 'DELIVERY', ...dueAttributes(pk, new Date(now.getTime() - 1000), { body }) } }),
      );
      await reconcileOverdue(
        now,
        keepingOwn((b) => ownBodies.has(b), sent),
      );
    }
    expect(sent.filter((m) => m.body === body)).toHaveLength(1);
    expect(sent.some((m) => m.body === 'later')).toBe(false);

    const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: { pk, sk: 'DELIVERY' } }));
    expect(Date.parse(Item!.gsi2sk)).toBe(now.getTime() + queueRedeliveryGraceSeconds() * 1000);

    const again: QueueMessage[] = [];
    await reconcileOverdue(
      now,
      keepingOwn((b) => ownBodies.has(b), again),
    );
    expect(again.filter((m) => m.body === body)).toHaveLength(0);
  });

  it('after a restart re-sends every waiting record, due or not, and counts its next due time from now (not from the far future it asked for)', async () => {
    const pk = `T#reconcile#DELIVERY#${randomUUID()}`;
    const now = new Date();
    await tableClient().send(
      new PutCommand({ TableName: tableName(), Item: { pk, sk: 'DELIVERY', ...dueAttributes(pk, new Date(now.getTime() + 60_000), { body: pk }) } }),
    );
    const sent: QueueMessage[] = [];
    await reconcileOverdue(
      now,
      keepingOwn((b) => b === pk || ownBodies.has(b), sent),
      EVERYTHING_DUE,
    );
    expect(sent.filter((m) => m.body === pk)).toHaveLength(1);
    const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: { pk, sk: 'DELIVERY' } }));
    expect(Date.parse(Item!.gsi2sk)).toBe(now.getTime() + queueRedeliveryGraceSeconds() * 1000);
  });
});
