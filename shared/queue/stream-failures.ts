/**
 * The table stream's on-failure queue as on-call reads it: which batches were given up after
 * their retries (consumer, shard range, size, time), never the records themselves. The work
 * they carried is replayed from its stream-work entries (`stream-work list|replay`); the
 * messages are the evidence, purged once that is done.
 */
import { DeleteMessageCommand, GetQueueAttributesCommand, PurgeQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { queueClient } from '../storage/clients.ts';

export interface StreamFailure {
  message_id: string;
  consumer: string;
  condition: string;
  failed_at: string;
  start_sequence_number: string;
  end_sequence_number: string;
  batch_size: number;
  first_record_at: string;
}

export async function peekStreamFailures(queueUrl: string, max = 10): Promise<{ approximate: number; failures: StreamFailure[] }> {
  const { Attributes } = await queueClient().send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
  const { Messages = [] } = await queueClient().send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: Math.min(10, max), VisibilityTimeout: 0 }),
  );
  return {
    approximate: Number(Attributes?.ApproximateNumberOfMessages ?? 0),
    failures: Messages.map((m) => {
      const body = JSON.parse(m.Body ?? '{}');
      const info = body.DDBStreamBatchInfo ?? {};
      return {
        message_id: m.MessageId ?? '?',
        consumer: String(body.requestContext?.functionArn ?? '?')
          .split(':')
          .at(-1)!,
        condition: String(body.requestContext?.condition ?? '?'),
        failed_at: String(body.timestamp ?? '?'),
        start_sequence_number: String(info.startSequenceNumber ?? '?'),
        end_sequence_number: String(info.endSequenceNumber ?? '?'),
        batch_size: Number(info.batchSize ?? 0),
        first_record_at: String(info.approximateArrivalOfFirstRecord ?? '?'),
      };
    }),
  };
}

/** Empties the queue: PurgeQueue on AWS; message by message where the emulator lacks it. */
export async function purgeStreamFailures(queueUrl: string): Promise<void> {
  try {
    await queueClient().send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
  } catch {
    for (;;) {
      const { Messages = [] } = await queueClient().send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 30 }));
      if (!Messages.length) return;
      for (const m of Messages) await queueClient().send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
}
