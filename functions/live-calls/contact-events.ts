/**
 * The worker of Amazon Connect's contact events (EventBridge rule → queue → here): the end of
 * each of our contacts becomes its attempt's report, recorded once. Duplicated, reordered and
 * late events change nothing (reportAttempt). A failing record is retried by the queue and
 * dead-lettered after its receives.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { type ContactEndPorts, recordContactEnd } from '#shared/calls/connect/contact-events.ts';
import { dynamoContactMap } from '#shared/calls/connect/contact-store.ts';
import { processing } from '../order-processing.ts';

const ports: ContactEndPorts = { contacts: dynamoContactMap, reportAttempt: processing.reportAttempt };

const recordContactEvent = (record: SQSRecord) => recordContactEnd(ports, JSON.parse(record.body), new Date());

export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordContactEvent, new BatchProcessor(EventType.SQS), { context });
