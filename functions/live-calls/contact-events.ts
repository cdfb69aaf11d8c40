/**
 * The worker of Amazon Connect's contact events (EventBridge rule → queue → here): the end of
 * each of our contacts becomes its attempt's report, recorded once. Duplicated, reordered and
 * late events change nothing (reportAttempt). An end that comes before its contact is mapped
 * (the dial's answer is still on its way) is received again in a few seconds, a few times; a
 * failing record is retried by the queue and dead-lettered after its receives.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { type ContactEndPorts, recordContactEnd } from '#shared/calls/connect/contact-events.ts';
import { dynamoContactMap } from '#shared/calls/connect/contact-store.ts';
import { redeliverIn } from '#shared/queue/redelivery.ts';
import { config } from '../composition-root.ts';
import { processing } from '../order-processing.ts';

const ports: ContactEndPorts = { contacts: dynamoContactMap, reportAttempt: processing.reportAttempt };

/** An early end is received again after 1, 2 and 4 seconds (its dial's answer is milliseconds behind), at most this many times (the queue dead-letters at 5). */
const EARLY_END_RECEIVES = 4;

/** Its record failed on purpose: received again soon, not an error of ours. */
class ContactNotYetMapped extends Error {
  override readonly name = 'ContactNotYetMapped';
}

async function recordContactEvent(record: SQSRecord): Promise<void> {
  if ((await recordContactEnd(ports, JSON.parse(record.body), new Date())) !== 'retry') return;
  const receives = Number(record.attributes.ApproximateReceiveCount ?? 1);
  const queueUrl = config.connect?.contactEventsQueueUrl;
  if (receives >= EARLY_END_RECEIVES || !queueUrl) return;
  await redeliverIn(queueUrl, record.receiptHandle, 2 ** (receives - 1));
  throw new ContactNotYetMapped('the contact of this end is not mapped yet');
}

export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordContactEvent, new BatchProcessor(EventType.SQS), { context });
