/**
 * The stream processor's dispatch: each stream record goes to every reaction interested in
 * it. Records of the same item are handled in stream order; different items are handled side
 * by side (as Lambda's parallelization factor does), so a large catalog import never holds
 * up an order. Items start in tenant turns (one item of each tenant, then the next of each), so
 * one tenant's burst in a batch does not put another tenant's records behind all of its own
 * in the queue for the concurrency slots. A failure is reported as a partial batch failure at the earliest failed
 * record: the event source retries from there, and records already handled come again,
 * which the reactions tolerate (they are idempotent).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { mapWithConcurrency } from '../async/concurrency.ts';
import { logger } from '../logging/logger.ts';
import { tenantOfKey } from '../storage/keys.ts';

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

/** Items handled side by side within one batch. */
export const STREAM_ITEM_CONCURRENCY = 16;

const image = (i: Record<string, unknown> | undefined) => (i ? unmarshall(i as Record<string, AttributeValue>) : undefined);

export function toChange(record: DynamoDBRecord): StreamChange {
  return {
    eventName: record.eventName as StreamChange['eventName'],
    newImage: image(record.dynamodb?.NewImage),
    oldImage: image(record.dynamodb?.OldImage),
  };
}

const itemKeyOf = (record: DynamoDBRecord) => JSON.stringify(record.dynamodb?.Keys ?? {});

/** The items' record lists in tenant turns: each tenant's items keep their batch order. */
export function inTenantTurns<T extends { record: DynamoDBRecord }>(items: readonly T[][]): T[][] {
  const byTenant = new Map<string, T[][]>();
  for (const records of items) {
    const tenant = tenantOfKey(records[0]!.record.dynamodb?.Keys?.pk?.S ?? '');
    byTenant.set(tenant, [...(byTenant.get(tenant) ?? []), records]);
  }
  const queues = [...byTenant.values()];
  const turns: T[][] = [];
  for (let round = 0; turns.length < items.length; round++) for (const queue of queues) if (round < queue.length) turns.push(queue[round]!);
  return turns;
}

export async function dispatchStream(event: DynamoDBStreamEvent, reactions: readonly Reaction[]): Promise<DynamoDBBatchResponse> {
  const byItem = new Map<string, { record: DynamoDBRecord; position: number }[]>();
  event.Records.forEach((record, position) => {
    const key = itemKeyOf(record);
    byItem.set(key, [...(byItem.get(key) ?? []), { record, position }]);
  });
  let firstFailure: number | undefined;
  await mapWithConcurrency(inTenantTurns([...byItem.values()]), STREAM_ITEM_CONCURRENCY, async (records) => {
    for (const { record, position } of records) {
      if (firstFailure !== undefined && firstFailure < position) return;
      let current = '';
      try {
        const change = toChange(record);
        for (const reaction of reactions) {
          current = reaction.name;
          await reaction.handle(change);
        }
      } catch (error) {
        // Names only: a stream image may hold personal data.
        logger.error('stream reaction failed; the batch is retried from this record', {
          reaction: current,
          error: (error as Error).name,
        });
        firstFailure = Math.min(firstFailure ?? position, position);
        return;
      }
    }
  });
  return {
    batchItemFailures: firstFailure === undefined ? [] : [{ itemIdentifier: event.Records[firstFailure]!.dynamodb!.SequenceNumber! }],
  };
}
