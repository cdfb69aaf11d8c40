/**
 * Feeds an SQS queue to a handler with Lambda's event-source semantics: batches of up to
 * `batchSize` messages; successful messages are deleted; messages named in
 * `batchItemFailures` (or all, when the handler throws) stay and reappear after their
 * visibility timeout; the queue's redrive policy moves them to the DLQ after
 * maxReceiveCount receives.
 */
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { pipelineFree } from './pipeline-hold.ts';

export interface QueuePollerOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  region: string;
  batchSize: number;
  handler: (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;
  onError?: (error: unknown) => void;
  /**
   * The mapping's maximum concurrency: Lambda starts five pollers and, while every one is busy
   * and messages wait, adds more (up to 300 a minute) up to this many concurrent invocations.
   */
  maxConcurrency?: number;
}

const LAMBDA_INITIAL_POLLERS = 5;
/** Lambda's scale-up for SQS: up to 300 more concurrent invocations a minute, one every 200 ms. */
const SCALE_UP_EVERY_MS = 200;
/** Without a mapping maximum, as many as Lambda's default for one function here. */
const DEFAULT_MAX_POLLERS = 20;

const toRecord = (m: Message, options: QueuePollerOptions): SQSRecord => ({
  messageId: m.MessageId!,
  receiptHandle: m.ReceiptHandle!,
  body: m.Body ?? '',
  attributes: m.Attributes as unknown as SQSRecord['attributes'],
  messageAttributes: (m.MessageAttributes ?? {}) as unknown as SQSRecord['messageAttributes'],
  md5OfBody: m.MD5OfBody ?? '',
  eventSource: 'aws:sqs',
  eventSourceARN: options.queueArn,
  awsRegion: options.region,
});

/** Hands a batch to the handler and deletes the messages it did not report as failed (a thrown error fails them all). */
async function handleBatch(options: QueuePollerOptions, records: SQSRecord[]): Promise<void> {
  let failed: Set<string>;
  try {
    const response = await options.handler({ Records: records });
    failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
  } catch (error) {
    options.onError?.(error);
    failed = new Set(records.map((r) => r.messageId));
  }
  const succeeded = records.filter((r) => !failed.has(r.messageId));
  if (!succeeded.length) return;
  await options.client.send(
    new DeleteMessageBatchCommand({ QueueUrl: options.queueUrl, Entries: succeeded.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })) }),
  );
}

export function startQueuePoller(options: QueuePollerOptions): { stop: () => Promise<void>; lastActivityAt: () => number } {
  let running = true;
  let lastActivityAt = Date.now();
  let batchesInFlight = 0;
  const abort = new AbortController();
  const receive = () =>
    options.client.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: options.batchSize,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: abort.signal },
    );
  const receiveLoop = async () => {
    while (running) {
      await pipelineFree();
      try {
        const { Messages = [] } = await receive();
        if (!Messages.length) continue;
        batchesInFlight++;
        try {
          await handleBatch(
            options,
            Messages.map((m) => toRecord(m, options)),
          );
        } finally {
          batchesInFlight--;
          lastActivityAt = Date.now();
        }
      } catch (error) {
        if (!running) break;
        options.onError?.(error);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };
  const maxPollers = options.maxConcurrency ?? DEFAULT_MAX_POLLERS;
  const loops = Array.from({ length: Math.min(LAMBDA_INITIAL_POLLERS, maxPollers) }, receiveLoop);
  // Scale up while every poller is handling a batch (messages keep coming): a slow batch then
  // holds one invocation of many, as on Lambda, not one of five.
  const scaler = setInterval(() => {
    if (running && batchesInFlight >= loops.length && loops.length < maxPollers) loops.push(receiveLoop());
  }, SCALE_UP_EVERY_MS);
  scaler.unref();
  return {
    /** Now while a batch is being handled, else when the last one ended. */
    lastActivityAt: () => (batchesInFlight > 0 ? Date.now() : lastActivityAt),
    stop: async () => {
      running = false;
      clearInterval(scaler);
      abort.abort();
      await Promise.all(loops);
    },
  };
}
