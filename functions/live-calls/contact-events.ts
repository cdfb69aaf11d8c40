/**
 * The worker of Amazon Connect's contact events (EventBridge rule → queue → here): the end of
 * each of our contacts becomes its attempt's report, recorded once. Duplicated, reordered and
 * late events change nothing (reportAttempt); an event for a contact this service does not know
 * (another flow's, or one an erasure forgot) is dropped. A failing record is retried by the
 * queue and dead-lettered after its receives.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { contactEnd, reportOfContactEnd } from '#shared/calls/connect/contact-events.ts';
import { dynamoContactMap } from '#shared/calls/connect/contact-store.ts';
import { reportAttempt } from '#shared/orders/processing.ts';
import { processing } from '../order-processing.ts';

async function recordContactEvent(record: SQSRecord): Promise<void> {
  const end = contactEnd(JSON.parse(record.body));
  if (!end) return;
  const contact = await dynamoContactMap.byContact(end.contactId);
  if (!contact) return;
  // The customer's choice is kept with the attempt's reference by the flow's last turn.
  const decision = (await dynamoContactMap.byReference(contact.reference))?.decision;
  const now = new Date();
  await reportAttempt(processing.ports, contact, reportOfContactEnd(end, decision, now), now);
}

export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordContactEvent, new BatchProcessor(EventType.SQS), { context });
