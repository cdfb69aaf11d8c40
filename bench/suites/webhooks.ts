/**
 * `webhooks`: 2,000 events through the local pipeline (outbox item → stream → fan-out →
 * SQS → sender → a receiver on 127.0.0.1): deliveries per second and the time from the
 * outbox write to the receiver's 2xx.
 */
import { randomUUID } from 'node:crypto';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { putEventOnce } from '#shared/events/event-store.ts';
import { eventItem } from '#shared/events/outbox.ts';
import { keys } from '#shared/storage/keys.ts';
import { startReceiver } from '#test/support/receiver.ts';
import { benchTenant, send } from '../lib/client.ts';
import { type Figure, figure } from '../lib/figures.ts';
import { percentile, progress } from '../lib/measure.ts';

const EVENTS = 2000;
/**
 * Events written per second in the latency run: a steady stream that DynamoDB Local keeps up
 * with (it manages about 30 events a second through this pipeline on 2 cores), so the
 * latency is the pipeline's own and not a backlog's. A burst run measures the throughput.
 */
const RATE = 20;
const BURST = 500;

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

export async function run(baseUrl: string): Promise<Figure[]> {
  const receiver = await startReceiver(() => 'ok');
  try {
    progress(`latency run: ${EVENTS} events at ${RATE}/s`);
    const steady = await phase(baseUrl, receiver, EVENTS, RATE);
    progress(`throughput run: a burst of ${BURST} events`);
    const burst = await phase(baseUrl, receiver, BURST, 10_000);
    return [
      figure({
        suite: 'webhooks',
        name: `deliveries per second, a burst of ${BURST} events`,
        value: burst.perSecond,
        unit: 'deliveries/s',
        note: 'DynamoDB Local bound: about five item writes per delivery',
      }),
      figure({
        suite: 'webhooks',
        name: `outbox write to receiver 2xx, p50 (${EVENTS} events at ${RATE}/s)`,
        value: percentile(steady.latencies, 50),
        unit: 'ms',
      }),
      figure({
        suite: 'webhooks',
        name: `outbox write to receiver 2xx, p99 (${EVENTS} events at ${RATE}/s)`,
        value: percentile(steady.latencies, 99),
        unit: 'ms',
        floor: { value: 1000, label: 'the target itself: 1 s' },
        target: { ratio: 1, direction: 'at_most' },
      }),
      figure({ suite: 'webhooks', name: 'duplicate deliveries (both runs)', value: steady.duplicates + burst.duplicates, unit: 'requests' }),
    ];
  } finally {
    await receiver.close();
  }
}
