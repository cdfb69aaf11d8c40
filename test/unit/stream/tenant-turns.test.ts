/**
 * One tenant's burst in a stream batch must not hold another tenant's records back: the
 * dispatch starts items in tenant turns, so a record of tenant B after 40 of tenant A's is
 * among the first handled, while each item's own records keep their stream order.
 */
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { dispatchStream, STREAM_ITEM_CONCURRENCY } from '#shared/stream/stream-dispatch.ts';

const record = (tenant: string, item: string, n: number, sequence: number): DynamoDBRecord => ({
  eventName: 'MODIFY',
  dynamodb: {
    Keys: { pk: { S: `T#${tenant}#ORDER#${item}` }, sk: { S: 'ORDER' } },
    NewImage: { pk: { S: `T#${tenant}#ORDER#${item}` }, sk: { S: 'ORDER' }, n: { N: String(n) } },
    SequenceNumber: String(sequence),
  },
});

describe('stream dispatch in tenant turns', () => {
  it("starts tenant B's record in the first round although 40 of tenant A's items come before it, and keeps each item's order", async () => {
    const records = Array.from({ length: 40 }, (_, i) => record('a', `o${i}`, 1, i));
    records.push(record('a', 'o0', 2, 40), record('b', 'x', 1, 41), record('b', 'x', 2, 42));
    const started: string[] = [];
    await dispatchStream({ Records: records } as DynamoDBStreamEvent, [
      {
        name: 'slow',
        handle: async (change) => {
          started.push(`${change.newImage!.pk as string}:${String(change.newImage!.n)}`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        },
      },
    ]);
    expect(started).toHaveLength(43);
    expect(started.indexOf('T#b#ORDER#x:1')).toBeLessThan(STREAM_ITEM_CONCURRENCY);
    expect(started.indexOf('T#b#ORDER#x:2')).toBeGreaterThan(started.indexOf('T#b#ORDER#x:1'));
    expect(started.indexOf('T#a#ORDER#o0:2')).toBeGreaterThan(started.indexOf('T#a#ORDER#o0:1'));
  });

  it('reports the earliest failed record of the batch whatever order the tenants took', async () => {
    const records = [record('a', 'o1', 1, 1), record('a', 'o2', 1, 2), record('b', 'x', 1, 3)];
    const answer = await dispatchStream({ Records: records } as DynamoDBStreamEvent, [
      {
        name: 'fails on a',
        handle: async (change) => {
          if ((change.newImage!.pk as string).startsWith('T#a#')) throw new Error('transient');
        },
      },
    ]);
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: '1' }]);
  });
});
