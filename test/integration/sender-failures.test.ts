/**
 * The webhook sender's own failures (not a receiver's): each logged with delivery id, tenant
 * and error class and counted; a batch where every message failed that way is a Lambda error,
 * so the Errors metric and its alarm see it; a receiver-side retry never is.
 */
import { readFileSync } from 'node:fs';
import type { Context, SQSEvent } from 'aws-lambda';
import { describe, expect, inject, it } from 'vitest';
import '../support/stack.ts';
import { queuedDelivery } from '../support/deliveries.ts';
import { eventually } from '../support/eventually.ts';
import { startReceiver } from '../support/receiver.ts';

const { handler } = await import('#functions/workers/webhook-sender.ts');

const record = (id: string, body: string) =>
  ({
    messageId: id,
    receiptHandle: `rh-${id}`,
    body,
    attributes: {},
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:local:000000000000:q',
    awsRegion: 'local',
  }) as SQSEvent['Records'][number];
const context = { functionName: 'webhook-sender', awsRequestId: 'req-sender', getRemainingTimeInMillis: () => 60_000 } as unknown as Context;
// A delivery id of the wrong type: the sender fails on it (our failure), before any receiver is involved.
const broken = (tenant: string) => JSON.stringify({ tenant, delivery_id: { not: 'an id' } });

describe('the webhook sender', () => {
  it('reports a failed message as a batch item failure, logged with delivery id, tenant and error class', async () => {
    const response = await handler(
      { Records: [record('m-1', broken('t-sender-a')), record('m-2', JSON.stringify({ tenant: 't-sender-a', delivery_id: 'dlv_gone' }))] },
      context,
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    // The handler ran in this test worker: its output reaches the log file through the worker's
    // stdout pipe to the main process, so it may land a moment after the handler returned.
    const logged = (match: (line: string) => boolean) =>
      eventually(
        () => readFileSync(inject('logFile'), 'utf8').split('\n').filter(match),
        (lines) => lines.length > 0,
        { timeoutMs: 10_000, everyMs: 50 },
      );
    const lines = (await logged((l) => l.includes('t-sender-a') && l.includes('webhook delivery message failed'))).map((l) => JSON.parse(l));
    expect(lines).toContainEqual(expect.objectContaining({ level: 'ERROR', tenant: 't-sender-a', delivery_id: { not: 'an id' }, error: expect.any(String) }));
    const metrics = await logged((l) => l.startsWith('{"_aws"') && l.includes('"SenderFailures"'));
    expect(metrics.length).toBeGreaterThan(0);
  });

  it('answers each of two invocations running at once with its own failures (the local runtime runs them in one process)', async () => {
    const receiver = await startReceiver(() => 'ok', { delayMs: 800, handMadePayloads: true });
    try {
      const { tenant, id: slow } = await queuedDelivery(receiver.url);
      // The first fails at once and its slow neighbour keeps the invocation open while the second runs.
      const first = handler({ Records: [record('x-broken', broken(tenant)), record('x-slow', JSON.stringify({ tenant, delivery_id: slow }))] }, context);
      await new Promise((r) => setTimeout(r, 200));
      const second = await handler({ Records: [record('y-gone', JSON.stringify({ tenant, delivery_id: 'dlv_gone' }))] }, context);
      expect(second.batchItemFailures).toEqual([]);
      // Its failed message stays in the queue; an answer without it would have it deleted, and lost.
      expect((await first).batchItemFailures).toEqual([{ itemIdentifier: 'x-broken' }]);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('raises when every message of the batch failed so, which Lambda counts as an error', async () => {
    await expect(handler({ Records: [record('m-3', broken('t-sender-b')), record('m-4', broken('t-sender-b'))] }, context)).rejects.toThrow(
      /All records failed|FullBatchFailure/i,
    );
  });
});
