/**
 * `webhooks`: events through the local pipeline (outbox item → stream → fan-out → SQS →
 * sender → a receiver on 127.0.0.1). First a burst measures deliveries per second, beside a
 * floor measured in the same run: the same DynamoDB writes, SQS calls and POST per delivery
 * issued directly, at the sender's concurrency, with no stream and no pollers. Then a steady
 * stream at half the throughput just measured gives the time from the outbox write to the
 * receiver's 2xx, beside its floor: one delivery's calls made one after another, after the wait
 * a stream reader has between reads. Both figures are ratios to what this machine does in the
 * same run, so a slow machine does not read as a slow pipeline, and the steady rate never
 * outruns the pipeline into a backlog.
 */
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { STREAM_POLL_INTERVAL_MS } from '#local/stream-poller.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { putEventOnce } from '#shared/events/event-store.ts';
import { eventItem } from '#shared/events/outbox.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { deliveryItem, type StoredDelivery } from '#shared/webhooks/delivery-item.ts';
import { deliveryPayloadItem } from '#shared/webhooks/delivery-store.ts';
import { startReceiver } from '#test/support/receiver.ts';
import { benchTenant, send } from '../lib/client.ts';
import { type Figure, figure } from '../lib/figures.ts';
import { percentile, progress } from '../lib/measure.ts';

const BURST = 500;
/**
 * The targets as ratios. The pipeline passes each event through a stream poll, the fan-out's
 * reads (the subscription, the listen sessions), a queue poll and the sender's, where the floor
 * makes the same writes back to back: it keeps at least a quarter of the floor's throughput.
 * A delivery's p99 stays within twice its floor: one delivery's calls one after another, after
 * the stream reader's wait between reads, which every event-driven delivery meets (the wait is
 * fixed while the calls' time is the machine's, so a floor without it made a fast machine read
 * as a slow pipeline). With a floor under 500 ms, that is within the 1 s the service promises.
 */
export const WEBHOOK_TARGETS = { throughputShare: 0.25, latencyOverFloor: 2 } as const;
/** One delivery's calls timed alone this many times; the floor takes their p99. */
const ALONE_SAMPLES = 100;
/** The steady stream's rate, as a share of the burst's deliveries per second. */
const STEADY_SHARE = 0.5;
const STEADY_SECONDS = 60;
/** Attempts the floor has under way at once: the sender's instances locally (its queue source's concurrency). */
const FLOOR_CONCURRENCY = 20;
const PAYLOAD = JSON.stringify({ data: { previous_state: null, processing_state: 'received', reason: null }, pad: 'x'.repeat(600) });

async function phase(baseUrl: string, receiver: Awaited<ReturnType<typeof startReceiver>>, events: number, rate: number) {
  const key = await benchTenant('bench-webhooks');
  const put = await send(baseUrl, key, 'PUT', '/webhook-subscription', { url: receiver.url, event_types: ['commerce.order.status_changed.v1'] });
  if (put.status !== 201) throw new Error(`PUT /webhook-subscription answered ${put.status}`);
  receiver.received.length = 0;
  const writtenAt = new Map<string, number>();
  const start = Date.now();
  await mapWithConcurrency(
    Array.from({ length: events }, (_, i) => i),
    20,
    async (i) => {
      const due = start + (i * 1000) / rate;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      const id = randomUUID();
      const item = eventItem(keys.orderEvent(`T#${key.tenant}#ORDER#bench-${id}`, 1), {
        event_type: 'commerce.order.status_changed.v1',
        tenant: key.tenant,
        external_order_id: `bench-${id}`,
        correlation_id: `cor_${id}`,
        causation_id: null,
        data: { previous_state: null, processing_state: 'received', reason: null },
        occurredAt: new Date(),
      });
      // As a stand-alone event is written (a test event, a write-back's failure): with its stream-work entry, which the fan-out publishes it by.
      await putEventOnce(item);
      writtenAt.set(item.event_id, Date.now());
      if (i % 500 === 499) progress(`${i + 1}/${events} events written`);
    },
  );
  const deadline = Date.now() + 5 * 60_000;
  const firstReceipt = new Map<string, number>();
  while (Date.now() < deadline) {
    for (const r of receiver.received) {
      const id = r.headers['x-svc-webhook-event-id'] as string;
      if (!firstReceipt.has(id)) firstReceipt.set(id, r.at);
    }
    if (firstReceipt.size >= events) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  if (firstReceipt.size < events) throw new Error(`only ${firstReceipt.size} of ${events} events were delivered`);
  return {
    latencies: [...firstReceipt].map(([id, at]) => at - writtenAt.get(id)!).sort((a, b) => a - b),
    perSecond: events / ((Math.max(...firstReceipt.values()) - start) / 1000),
    duplicates: receiver.received.length - firstReceipt.size,
  };
}

/**
 * One delivery's writes and queue calls, as the pipeline makes them to a fast endpoint, issued
 * directly: the event, the payload and the record (with its list and status index entries), the
 * message, the record claimed, the POST, the attempt, the outcome (the record rewritten, out of
 * the status index) and the message deleted. A fast endpoint takes no slot.
 * Items are marked `floor`, so the running pipeline passes over them (and the event has no
 * stream-work entry, which the pipeline would take up: the floor is the cheaper for it).
 */
function floorDelivery(queue: { sqs: SQSClient; url: string }, receiverUrl: string, tenant: string) {
  const put = (item: Record<string, unknown>) => tableClient().send(new PutCommand({ TableName: tableName(), Item: { ...item, entity: 'floor' } }));
  const record = (id: string, status: 'queued' | 'delivered'): StoredDelivery => ({
    ...keys.delivery(tenant, id),
    tenant,
    delivery_id: id,
    event_id: `evt_${id}`,
    event_type: 'commerce.order.status_changed.v1',
    status,
    attempts: status === 'queued' ? 0 : 1,
    created_at: new Date().toISOString(),
    delivered_at: status === 'delivered' ? new Date().toISOString() : null,
    next_attempt_at: null,
    replay_of: null,
    last_attempt: null,
  });
  const write = async () => {
    const id = `dlv_floor${randomUUID().replaceAll('-', '')}`;
    const { pk } = keys.delivery(tenant, id);
    await put({ ...keys.orderEvent(`T#${tenant}#ORDER#floor-${id}`, 1), payload: PAYLOAD });
    await put(deliveryPayloadItem(pk, { payload: PAYLOAD }));
    await put(deliveryItem(record(id, 'queued')));
    await queue.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: JSON.stringify({ id }) }));
  };
  const attempt = async (body: string, receipt: string) => {
    const { id } = JSON.parse(body) as { id: string };
    const { pk } = keys.delivery(tenant, id);
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.delivery(tenant, id),
        UpdateExpression: 'SET delivering_until = :l',
        ExpressionAttributeValues: { ':l': new Date().toISOString() },
      }),
    );
    const answer = await fetch(receiverUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-webhook-event-id': id }, body: PAYLOAD });
    await answer.arrayBuffer();
    await put({ ...keys.deliveryAttempt(pk, 1), status_code: answer.status, at: new Date().toISOString() });
    await put(deliveryItem(record(id, 'delivered')));
    await queue.sqs.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: receipt }));
  };
  return { write, attempt };
}

/** The floor's deliveries per second over `events`, and one delivery's time with nothing else under way (p99 of ALONE_SAMPLES). */
async function floor(events: number) {
  // A receiver of its own, the same server: the floor's bodies are not events, so the contract check stays off.
  const receiver = await startReceiver(() => 'ok', { handMadePayloads: true });
  try {
    return await floorRuns(receiver.url, events);
  } finally {
    await receiver.close();
  }
}

async function floorRuns(receiverUrl: string, events: number) {
  const sqs = new SQSClient({ endpoint: process.env.SQS_ENDPOINT, region: process.env.AWS_REGION });
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `bench-webhooks-floor-${randomUUID().slice(0, 8)}` }));
  const queue = { sqs, url: QueueUrl! };
  const tenant = `bench-floor-${randomUUID().slice(0, 8)}`;
  const delivery = floorDelivery(queue, receiverUrl, tenant);
  let delivered = 0;
  const consume = async () => {
    while (delivered < events) {
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      await Promise.all(
        Messages.map(async (m) => {
          await delivery.attempt(m.Body!, m.ReceiptHandle!);
          delivered++;
        }),
      );
    }
  };
  const start = Date.now();
  const consumers = Promise.all(Array.from({ length: FLOOR_CONCURRENCY / 10 }, consume));
  await mapWithConcurrency(
    Array.from({ length: events }, (_, i) => i),
    FLOOR_CONCURRENCY,
    () => delivery.write(),
  );
  await consumers;
  const perSecond = events / ((Date.now() - start) / 1000);
  const alone: number[] = [];
  for (let i = 0; i < ALONE_SAMPLES; i++) {
    const began = Date.now();
    await delivery.write();
    let handled = false;
    while (!handled) {
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.url, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }));
      for (const m of Messages) await delivery.attempt(m.Body!, m.ReceiptHandle!);
      handled = Messages.length > 0;
    }
    alone.push(Date.now() - began);
  }
  return {
    perSecond,
    aloneP99: percentile(
      alone.sort((a, b) => a - b),
      99,
    ),
  };
}

export async function run(baseUrl: string): Promise<Figure[]> {
  const receiver = await startReceiver(() => 'ok');
  try {
    progress(`throughput run: a burst of ${BURST} events, then its floor`);
    const burst = await phase(baseUrl, receiver, BURST, 10_000);
    const direct = await floor(BURST);
    const rate = Math.max(1, Math.round(burst.perSecond * STEADY_SHARE));
    const events = rate * STEADY_SECONDS;
    progress(`latency run: ${events} events at ${rate}/s (${STEADY_SHARE} of the burst's ${burst.perSecond.toFixed(1)} deliveries/s)`);
    const steady = await phase(baseUrl, receiver, events, rate);
    const p99 = percentile(steady.latencies, 99);
    return [
      figure({
        suite: 'webhooks',
        name: `deliveries per second, a burst of ${BURST} events`,
        value: burst.perSecond,
        unit: 'deliveries/s',
        floor: { value: direct.perSecond, label: `the same writes, SQS calls and POST per delivery issued directly, ${FLOOR_CONCURRENCY} at once` },
        target: { ratio: WEBHOOK_TARGETS.throughputShare, direction: 'at_least' },
      }),
      figure({
        suite: 'webhooks',
        name: `outbox write to receiver 2xx, p50 (a minute at ${STEADY_SHARE} of the burst's rate)`,
        value: percentile(steady.latencies, 50),
        unit: 'ms',
        note: `${events} events at ${rate}/s`,
      }),
      figure({
        suite: 'webhooks',
        name: `outbox write to receiver 2xx, p99 (a minute at ${STEADY_SHARE} of the burst's rate)`,
        value: p99,
        unit: 'ms',
        floor: {
          value: STREAM_POLL_INTERVAL_MS + direct.aloneP99,
          label: `the stream reader's ${STREAM_POLL_INTERVAL_MS} ms wait between reads + one delivery's calls made one after another, nothing else under way (${direct.aloneP99} ms, p99 of ${ALONE_SAMPLES})`,
        },
        target: { ratio: WEBHOOK_TARGETS.latencyOverFloor, direction: 'at_most' },
        note: `${events} events at ${rate}/s; the 1 s target on AWS: ${p99 <= 1000 ? 'met' : 'not met'} here`,
      }),
      figure({ suite: 'webhooks', name: 'duplicate deliveries (both runs)', value: steady.duplicates + burst.duplicates, unit: 'requests' }),
    ];
  } finally {
    await receiver.close();
  }
}
