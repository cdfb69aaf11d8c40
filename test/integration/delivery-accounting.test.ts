import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { dueAttributes } from '#shared/queue/outbox-queue.ts';
import { type DeliveryMessage, deliveryMessageBody } from '#shared/queue/webhook-queue.ts';
import { queueRedeliveryGraceSeconds, tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { deliveryFromItem, shownDelivery } from '#shared/webhooks/delivery-item.ts';
import { deliveryWithAttempts } from '#shared/webhooks/delivery-ops.ts';
import { claimDelivery, markRecovered, recordDeliveryAttempt } from '#shared/webhooks/delivery-store.ts';
import { processDeliveryRecord, RetryLater, type SenderQueue } from '#shared/webhooks/sender.ts';
import { queuedDelivery } from '../support/deliveries.ts';
import { startReceiver } from '../support/receiver.ts';

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver(() => 'fail', { handMadePayloads: true });
});
afterAll(() => receiver.close());

const settings = { allowPrivateUrls: true, timeoutScale: 0.1, backoffScale: 1, disableAfterSeconds: 5 * 86_400 };

const failingDelivery = (attempts = 0) => queuedDelivery(receiver.url, attempts);

const storedItem = async (tenant: string, id: string) =>
  (await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.delivery(tenant, id), ConsistentRead: true }))).Item!;
/** The delivery as a partner reads it (`delivering` while an attempt holds it). */
const stored = async (tenant: string, id: string) => shownDelivery(deliveryFromItem(await storedItem(tenant, id)), new Date());

describe('webhook attempt accounting', () => {
  it('never attempts early for a duplicate message: it waits out the backoff as a new delayed message, its receive not counted', async () => {
    const { tenant, id, body } = await failingDelivery();
    const queue = { retried: [] as number[], sentAgain: [] as { body: string; delay: number }[] };
    const senderQueue: SenderQueue = {
      sendToDeadLetterQueue: async () => undefined,
      retryIn: async (_receipt, seconds) => void queue.retried.push(seconds),
      send: async (again, delay = 0) => void queue.sentAgain.push({ body: deliveryMessageBody(again), delay }),
    };
    await expect(processDeliveryRecord({ body, receiptHandle: 'r' }, settings, senderQueue)).rejects.toBeInstanceOf(RetryLater);
    const received = receiver.received.length;
    // The duplicate attempts nothing: it is not kept in the queue (where each receive counts toward maxReceiveCount) but sent again.
    await expect(processDeliveryRecord({ body, receiptHandle: 'r2' }, settings, senderQueue)).resolves.toBeUndefined();
    expect(queue.retried).toHaveLength(1);
    expect(queue.sentAgain).toEqual([{ body, delay: expect.any(Number) }]);
    expect(queue.sentAgain[0]!.delay).toBeGreaterThan(20);
    expect(queue.sentAgain[0]!.delay).toBeLessThanOrEqual(900);
    expect(receiver.received.length).toBe(received);
    expect((await stored(tenant, id)).attempts).toBe(1);
  });

  it('holds a delivery whose endpoint is paused without an attempt, and moves the reconciler’s look past the hold', async () => {
    const { tenant, id, body } = await failingDelivery();
    const now = Date.now();
    const due = dueAttributes(keys.delivery(tenant, id).pk, new Date(now + 60_000), { body });
    const pausedUntil = new Date(now + 600_000).toISOString();
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.delivery(tenant, id),
        UpdateExpression: 'SET gsi2pk = :pk, gsi2sk = :sk, queue_message = :m',
        ExpressionAttributeValues: { ':pk': due.gsi2pk, ':sk': due.gsi2sk, ':m': due.queue_message },
      }),
    );
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookSubscription(tenant),
        UpdateExpression: 'SET paused_until = :until',
        ExpressionAttributeValues: { ':until': pausedUntil },
      }),
    );
    const sentAgain: number[] = [];
    const senderQueue: SenderQueue = {
      sendToDeadLetterQueue: async () => undefined,
      retryIn: async () => undefined,
      send: async (_message, delay = 0) => void sentAgain.push(delay),
    };
    const received = receiver.received.length;
    await expect(processDeliveryRecord({ body, receiptHandle: 'r' }, settings, senderQueue)).resolves.toBeUndefined();
    expect(receiver.received.length).toBe(received);
    expect(await stored(tenant, id)).toMatchObject({ status: 'queued', attempts: 0 });
    // Back when the pause has passed (spread over up to twice its rest), and not looked at by the reconciler before then and its grace.
    expect(sentAgain).toHaveLength(1);
    expect(sentAgain[0]).toBeGreaterThanOrEqual(590);
    expect(Date.parse((await storedItem(tenant, id)).gsi2sk)).toBeGreaterThanOrEqual(now + (sentAgain[0]! - 1 + queueRedeliveryGraceSeconds()) * 1000);
  });

  it('moves an 8th failure to the DLQ even when the first move fails, and never attempts a 9th time', async () => {
    const { tenant, id, body } = await failingDelivery(7);
    const moved: DeliveryMessage[] = [];
    let failMove = true;
    const queue: SenderQueue = {
      sendToDeadLetterQueue: async (message) => {
        if (failMove) {
          failMove = false;
          throw Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable' });
        }
        moved.push(message);
      },
      retryIn: async () => undefined,
      send: async () => undefined,
    };
    const before = receiver.received.length;
    await expect(processDeliveryRecord({ body, receiptHandle: 'r' }, settings, queue)).rejects.toThrow('Service Unavailable');
    await processDeliveryRecord({ body, receiptHandle: 'r' }, settings, queue);
    expect(receiver.received.length - before).toBe(1);
    expect(await stored(tenant, id)).toMatchObject({ status: 'dead_lettered', attempts: 8 });
    expect(moved).toEqual([{ tenant, delivery_id: id, from_dead_letter_queue: true }]);
    // A redrive of that message is what earns one more attempt.
    await expect(processDeliveryRecord({ body: deliveryMessageBody(moved[0]!), receiptHandle: 'r' }, settings, queue)).resolves.toBeUndefined();
    expect((await stored(tenant, id)).attempts).toBe(9);
  });

  it('sends nothing for the redriven dead letter of a recovered delivery: its event went out again already', async () => {
    const { tenant, id, body } = await failingDelivery(7);
    const moved: DeliveryMessage[] = [];
    const queue: SenderQueue = { sendToDeadLetterQueue: async (m) => void moved.push(m), retryIn: async () => undefined, send: async () => undefined };
    await processDeliveryRecord({ body, receiptHandle: 'r' }, settings, queue);
    expect(await stored(tenant, id)).toMatchObject({ status: 'dead_lettered', attempts: 8 });
    expect(await markRecovered(tenant, id, 'dlv_replay')).toBe(true);
    expect(await markRecovered(tenant, id, 'dlv_other')).toBe(false);
    const before = receiver.received.length;
    moved.length = 0;
    await expect(
      processDeliveryRecord({ body: JSON.stringify({ tenant, delivery_id: id, from_dead_letter_queue: true }), receiptHandle: 'r' }, settings, queue),
    ).resolves.toBeUndefined();
    expect({ attemptsSent: receiver.received.length - before, backToDlq: moved }).toEqual({ attemptsSent: 0, backToDlq: [] });
    expect(await stored(tenant, id)).toMatchObject({ status: 'dead_lettered', attempts: 8, recovered_by: 'dlv_replay' });
  });

  it('never lets a sender whose lease ran out overwrite a delivery another sender delivered', async () => {
    const { tenant, id } = await failingDelivery();
    const t0 = new Date();
    const first = await claimDelivery(tenant, id, t0, 1);
    const later = await claimDelivery(tenant, id, new Date(t0.getTime() + 2_000), 30);
    expect(first.kind).toBe('claimed');
    expect(later.kind).toBe('claimed');
    if (first.kind !== 'claimed' || later.kind !== 'claimed') return;
    const outcome = (statusCode: number) => ({ at: new Date(), statusCode, error: null, latencyMs: 1, requestExcerpt: '', responseExcerpt: '' });
    expect((await recordDeliveryAttempt(later.delivery, outcome(200), later.lease)).status).toBe('delivered');
    expect((await recordDeliveryAttempt(first.delivery, outcome(500), first.lease)).status).toBe('superseded');
    expect(await stored(tenant, id)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect((await deliveryWithAttempts(tenant, id))?.attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 200 })]);
  });

  it('shows an attempt in the delivery’s log exactly when the delivery counts it, whichever sender records first', async () => {
    const { tenant, id } = await failingDelivery();
    const t0 = new Date();
    const first = await claimDelivery(tenant, id, t0, 1);
    const later = await claimDelivery(tenant, id, new Date(t0.getTime() + 2_000), 30);
    if (first.kind !== 'claimed' || later.kind !== 'claimed') throw new Error('not claimed');
    const outcome = (statusCode: number) => ({ at: new Date(), statusCode, error: null, latencyMs: 1, requestExcerpt: '', responseExcerpt: '' });
    // The sender whose lease ran out records first: its attempt is not the delivery's.
    expect((await recordDeliveryAttempt(first.delivery, outcome(500), first.lease)).status).toBe('superseded');
    expect(await deliveryWithAttempts(tenant, id)).toMatchObject({ delivery: { attempts: 0 }, attempts: [] });
    expect((await recordDeliveryAttempt(later.delivery, outcome(200), later.lease)).status).toBe('delivered');
    expect(await deliveryWithAttempts(tenant, id)).toMatchObject({
      delivery: { status: 'delivered', attempts: 1 },
      attempts: [expect.objectContaining({ attempt: 1, status_code: 200 })],
    });
  });

  // The SDK's own repeat of a record write whose answer was lost: test/integration/lost-responses.test.ts.
  it('records an attempt once per claim: a second record of the same claim, or one after the next claim, changes nothing', async () => {
    const { tenant, id } = await failingDelivery();
    const claim = await claimDelivery(tenant, id, new Date(), 30);
    if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
    const failed = { at: new Date(), statusCode: 500, error: 'http_500', latencyMs: 1, requestExcerpt: '', responseExcerpt: '' };
    expect((await recordDeliveryAttempt(claim.delivery, failed, claim.lease, 0.0001)).status).toBe('retrying');
    expect((await recordDeliveryAttempt(claim.delivery, failed, claim.lease, 0.0001)).status).toBe('superseded');
    expect(await stored(tenant, id)).toMatchObject({ status: 'retrying', attempts: 1 });
    await new Promise((r) => setTimeout(r, 50));
    const next = await claimDelivery(tenant, id, new Date(), 30);
    expect(next.kind).toBe('claimed');
    // A repeat arriving after the next claim is a late writer and changes nothing.
    expect((await recordDeliveryAttempt(claim.delivery, failed, claim.lease, 0.0001)).status).toBe('superseded');
    expect(await stored(tenant, id)).toMatchObject({ status: 'delivering', attempts: 1 });
  });

  it('reports a retry as a message that stays, not as an error', async () => {
    const { body } = await failingDelivery();
    await expect(
      processDeliveryRecord({ body, receiptHandle: 'r' }, settings, {
        sendToDeadLetterQueue: async () => undefined,
        retryIn: async () => undefined,
        send: async () => undefined,
      }),
    ).rejects.toBeInstanceOf(RetryLater);
  });
});
