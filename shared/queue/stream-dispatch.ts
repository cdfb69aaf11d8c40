/**
 * The stream processor's dispatch: each stream record goes to every reaction interested in
 * it, in order per shard; a failing record is reported as a partial batch failure so the
 * event source retries from it and nothing after it is lost or reordered.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { logger } from '../support/logger.ts';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';

export interface StreamChange {
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  newImage?: Record<string, unknown>;
  oldImage?: Record<string, unknown>;
}

export interface Reaction {
  name: string;
  /** Must be idempotent: a record can be delivered more than once. */
  handle(change: StreamChange): Promise<void>;
}

const image = (i: Record<string, unknown> | undefined) => (i ? unmarshall(i as Record<string, AttributeValue>) : undefined);

export function toChange(record: DynamoDBRecord): StreamChange {
  return {
    eventName: record.eventName as StreamChange['eventName'],
    newImage: image(record.dynamodb?.NewImage),
    oldImage: image(record.dynamodb?.OldImage),
  };
}

export async function dispatchStream(event: DynamoDBStreamEvent, reactions: readonly Reaction[]): Promise<DynamoDBBatchResponse> {
  for (const record of event.Records) {
    let current = '';
    try {
      const change = toChange(record);
      for (const reaction of reactions) {
        current = reaction.name;
        await reaction.handle(change);
      }
    } catch (error) {
      // Names only: a stream image may hold personal data.
      logger.error('stream reaction failed; the batch is retried from this record', { reaction: current, error: (error as Error).name, message: (error as Error).message });
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb!.SequenceNumber! }] };
    }
  }
  return { batchItemFailures: [] };
}
