import { ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { queueClient } from '#shared/storage/clients.ts';
import { handleDeliveryMessage, type SenderSettings } from '#shared/webhooks/sender.ts';
import { config } from '../composition-root.ts';

const settings: SenderSettings = {
  allowPrivateUrls: config.webhookAllowPrivateUrls,
  timeoutScale: config.webhookTimeoutScale,
  backoffScale: config.webhookBackoffScale,
};

/**
 * One attempt per message. A retry keeps the message and sets its visibility timeout to the
 * backoff (reported as a batch item failure); the 8th failure moves it to the dead-letter
 * queue, from which a redrive brings it back for another attempt under the same delivery.
 */
async function handle(record: SQSRecord): Promise<boolean> {
  const action = await handleDeliveryMessage(record.body, settings);
  if (action.kind === 'done') return true;
  const { webhookQueueUrl, webhookDlqUrl } = config;
  if (action.kind === 'dead_letter') {
    await queueClient().send(new SendMessageCommand({ QueueUrl: webhookDlqUrl, MessageBody: record.body }));
    return true;
  }
  await queueClient().send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: webhookQueueUrl,
      ReceiptHandle: record.receiptHandle,
      VisibilityTimeout: Math.min(43_200, Math.round(action.inSeconds)),
    }),
  );
  return false;
}

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const results = await Promise.all(event.Records.map((r) => handle(r).catch(() => false)));
  return { batchItemFailures: event.Records.filter((_, i) => !results[i]).map((r) => ({ itemIdentifier: r.messageId })) };
};
