import { BatchProcessor, EventType, FullBatchFailureError, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { webhookQueue } from '#shared/queue/webhook-queue.ts';
import { batchSlots, processDeliveryRecord, RetryLater, type SenderSettings, systemResolver } from '#shared/webhooks/sender.ts';
import { config } from '../composition-root.ts';

const settings: SenderSettings = {
  allowPrivateUrls: config.webhookAllowPrivateUrls,
  timeoutScale: config.webhookTimeoutScale,
  backoffScale: config.webhookBackoffScale,
  disableAfterSeconds: config.webhookDisableAfterSeconds,
};

const queue = webhookQueue({ webhook: config.webhookQueueUrl, deadLetter: config.webhookDlqUrl });

/**
 * Powertools' batch processing: each record on its own, its failures (retries included)
 * reported as batch item failures. A batch whose every record waits for a retry is normal
 * (an endpoint that is down), so it is not a function error; a batch whose every record
 * failed for another reason is, so Lambda's Errors metric (and its alarm) sees it. Single
 * failures are counted as SenderFailures and logged with delivery id, tenant and error class.
 * The batch's messages claim their endpoints' slots through one per-invocation turn (batchSlots).
 */
export const handler = async (event: SQSEvent, context: Context) => {
  const slots = batchSlots();
  const recordHandler = (record: SQSRecord) => processDeliveryRecord(record, settings, queue, systemResolver, slots);
  // One processor per invocation: it holds the batch's failures, and invocations that share a
  // process (the local runtime runs concurrent ones in one) must not reset each other's. Shared,
  // one invocation's start dropped another's retries from its answer, and their messages were deleted.
  const processor = new BatchProcessor(EventType.SQS);
  const response = await processPartialResponse(event, recordHandler, processor, { context, throwOnFullBatchFailure: false });
  const failures = processor.errors.filter((error) => !(error instanceof RetryLater));
  if (event.Records.length > 0 && failures.length === event.Records.length) throw new FullBatchFailureError(failures);
  return response;
};
