import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { RECORDS_IN_HAND, startStreamPoller } from '#local/stream-poller.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { dynamoClient, tableClient, tableName } from '#shared/storage/clients.ts';
import { dispatchStream } from '#shared/stream/stream-dispatch.ts';
import { eventually } from '../support/eventually.ts';

/** The table stream mapping's settings as the template gives them (test/infra asserts the template). */
const MAPPING = { batchSize: 100, retryAttempts: 10, filterPatterns: [] };

/** A poller of the shared stack's table stream with `options`. */
const pollTableStream = (streamArn: string, options: Omit<Parameters<typeof startStreamPoller>[0], 'endpoint' | 'region' | 'streamArn'>) =>
  startStreamPoller({ endpoint: process.env.DYNAMODB_ENDPOINT!, region: 'us-east-1', streamArn, ...options });

/** A stream handler that hands `see` each change of the items under `marker`, as `#item:n`. */
const changesOf = (marker: string, see: (label: string) => void | Promise<void>) => (event: DynamoDBStreamEvent) =>
  dispatchStream(event, [
    {
      name: 'collect',
      handle: async (change) => {
        const pk = change.newImage?.pk as string | undefined;
        if (pk?.startsWith(marker)) await see(`${pk.slice(marker.length)}:${String(change.newImage!.n)}`);
      },
    },
  ]);

const until = async (check: () => boolean, ms = 20_000) => {
  if (!(await eventually(check, Boolean, { timeoutMs: ms, everyMs: 50 }))) throw new Error('timed out');
};

const streams = new DynamoDBStreamsClient({ endpoint: process.env.DYNAMODB_ENDPOINT!, region: 'us-east-1' });
const shardsOf = async (streamArn: string) => (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription!.Shards!;

/**
 * A checkpoint file at the stream's end: a poller started with it reads what is written from
 * then on. Found by reading from LATEST up to a marker written for it, so that a test does not
 * first read the whole shared stream, every other file's writes of the run (which outgrew the
 * test's wait late in a run).
 */
async function checkpointAtEnd(streamArn: string): Promise<string> {
  const shards = await shardsOf(streamArn);
  const open = shards.find((shard) => !shard.SequenceNumberRange?.EndingSequenceNumber) ?? shards.at(-1)!;
  let { ShardIterator: iterator } = await streams.send(
    new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: open.ShardId!, ShardIteratorType: 'LATEST' }),
  );
  const marker = `T#stream-end#${randomUUID()}`;
  await tableClient().send(new PutCommand({ TableName: tableName(), Item: { pk: marker, sk: 'X' } }));
  const end = await eventually(
    async () => {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      iterator = page.NextShardIterator;
      return page.Records?.find((r) => r.dynamodb?.Keys?.pk?.S === marker)?.dynamodb?.SequenceNumber;
    },
    (found) => found !== undefined,
    { timeoutMs: 20_000, everyMs: 50 },
  );
  if (end === undefined) throw new Error('the marker never reached the stream');
  // Shards closed before it are read to their end already.
  const closed = shards.filter((shard) => shard !== open).map((shard) => [shard.ShardId!, shard.SequenceNumberRange!.EndingSequenceNumber!]);
  const file = join(mkdtempSync(join(tmpdir(), 'checkpoint-')), 'stream-checkpoint.json');
  writeFileSync(file, JSON.stringify({ ...Object.fromEntries(closed), [open.ShardId!]: end }));
  return file;
}

describe('the local stream poller (DynamoDB Local streams, Lambda semantics)', () => {
  it("delivers each item's changes in order and, after a partial batch failure, retries from the failed record without losing any", async () => {
    const { Table } = await dynamoClient().send(new DescribeTableCommand({ TableName: tableName() }));
    const marker = `T#stream-test#${randomUUID()}`;
    const seen: string[] = [];
    let failedOnce = false;
    const poller = pollTableStream(Table!.LatestStreamArn!, {
      settings: MAPPING,
      checkpointFile: await checkpointAtEnd(Table!.LatestStreamArn!),
      handler: changesOf(marker, (label) => {
        if (label === '#a:2' && !failedOnce) {
          failedOnce = true;
          throw new Error('transient failure');
        }
        seen.push(label);
      }),
    });
    try {
      // Three versions of item a, and item b in between.
      for (const [item, n] of [
        ['a', 1],
        ['b', 1],
        ['a', 2],
        ['a', 3],
      ] as const) {
        await tableClient().send(new PutCommand({ TableName: tableName(), Item: { pk: `${marker}#${item}`, sk: 'X', n } }));
      }
      await until(() => seen.includes('#a:3') && seen.includes('#b:1'));
      expect(failedOnce).toBe(true);
      // Item a: each version once, in order, the failed one retried; b at least once (a retry may repeat it).
      expect(seen.filter((l) => l.startsWith('#a'))).toEqual(['#a:1', '#a:2', '#a:3']);
      expect(seen.filter((l) => l === '#b:1').length).toBeGreaterThanOrEqual(1);
    } finally {
      await poller.stop();
    }
  });

  it('with a parallelization factor, hands over other keys’ records while one batch is held, read before or after it, each key still in order, whatever the table writes besides', async () => {
    const { Table } = await dynamoClient().send(new DescribeTableCommand({ TableName: tableName() }));
    const streamArn = Table!.LatestStreamArn!;
    const marker = `T#lanes-test#${randomUUID()}`;
    const put = (item: string, n: number) => tableClient().send(new PutCommand({ TableName: tableName(), Item: { pk: `${marker}#${item}`, sk: 'X', n } }));
    // A checkpoint at the stream's end, so the records below are read in one go.
    const checkpointFile = await checkpointAtEnd(streamArn);

    await put('slow', 1);
    await put('slow', 2);
    for (let i = 0; i < 8; i++) await put(`fast-${i}`, 1);
    const seen: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const poller = pollTableStream(streamArn, {
      checkpointFile,
      // One record a batch: without lanes, every record behind the held one would wait for it.
      // Only this test's records are handed over, as a mapping's filter admits its own: the
      // shared table's other writes are read and dropped, as Lambda drops what no filter admits.
      settings: {
        ...MAPPING,
        batchSize: 1,
        parallelizationFactor: 4,
        filterPatterns: [JSON.stringify({ dynamodb: { Keys: { pk: { S: [{ prefix: marker }] } } } })],
      },
      handler: changesOf(marker, async (label) => {
        if (label === '#slow:1') await held;
        seen.push(label);
      }),
    });
    try {
      // Records of other keys get through while the slow key's first batch is held, those read
      // with it and those written after it (read later: one held batch does not stop the shard).
      await until(() => seen.some((label) => label.startsWith('#fast-')));
      // More writes the filter drops than a shard may have records in hand: read past, they hold nothing.
      const others = `T#lanes-other#${randomUUID()}`;
      await mapWithConcurrency(Array.from({ length: RECORDS_IN_HAND + 100 }), 16, (_, i) =>
        tableClient().send(new PutCommand({ TableName: tableName(), Item: { pk: `${others}#${i}`, sk: 'X', n: 1 } })),
      );
      // (Keys hash to one of 4 lanes: of 12 late keys, some lie outside the held one's lane, bar a 4^-12 chance.)
      for (let i = 0; i < 12; i++) await put(`late-${i}`, 1);
      await until(() => seen.some((label) => label.startsWith('#late-')));
      expect(seen.filter((label) => label.startsWith('#slow'))).toEqual([]);
      release();
      await until(
        () =>
          seen.includes('#slow:2') &&
          seen.filter((label) => label.startsWith('#fast-')).length === 8 &&
          seen.filter((label) => label.startsWith('#late-')).length === 12,
      );
      expect(seen.filter((label) => label.startsWith('#slow'))).toEqual(['#slow:1', '#slow:2']);
    } finally {
      release();
      await poller.stop();
    }
  });

  it('turns records into the Lambda event shape', async () => {
    const { Table } = await dynamoClient().send(new DescribeTableCommand({ TableName: tableName() }));
    const marker = `T#stream-shape#${randomUUID()}`;
    const records: DynamoDBRecord[] = [];
    const poller = startStreamPoller({
      endpoint: process.env.DYNAMODB_ENDPOINT!,
      region: 'us-east-1',
      streamArn: Table!.LatestStreamArn!,
      settings: MAPPING,
      checkpointFile: await checkpointAtEnd(Table!.LatestStreamArn!),
      handler: async (event) => {
        records.push(...event.Records.filter((r) => r.dynamodb?.Keys?.pk?.S === marker));
      },
    });
    try {
      await tableClient().send(new PutCommand({ TableName: tableName(), Item: { pk: marker, sk: 'X', n: 1 } }));
      await until(() => records.length >= 1);
      expect(records[0]).toMatchObject({
        eventName: 'INSERT',
        eventSource: 'aws:dynamodb',
        eventSourceARN: Table!.LatestStreamArn,
        dynamodb: { NewImage: { pk: { S: marker }, n: { N: '1' } }, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      });
    } finally {
      await poller.stop();
    }
  });

  it("never hands over a record older than the stream's 24 h retention, or one its filter criteria exclude", async () => {
    const { Table } = await dynamoClient().send(new DescribeTableCommand({ TableName: tableName() }));
    const marker = `T#stream-age#${randomUUID()}`;
    const handed: string[] = [];
    const warnings: string[] = [];
    const checkpointFile = await checkpointAtEnd(Table!.LatestStreamArn!);
    const reader = (now: () => number, filterPatterns: string[]) =>
      startStreamPoller({
        endpoint: process.env.DYNAMODB_ENDPOINT!,
        region: 'us-east-1',
        streamArn: Table!.LatestStreamArn!,
        settings: { ...MAPPING, filterPatterns },
        checkpointFile,
        now,
        onWarning: (message) => warnings.push(message),
        handler: async (event) => {
          handed.push(...event.Records.filter((r) => r.dynamodb?.Keys?.pk?.S?.startsWith(marker)).map((r) => r.dynamodb!.Keys!.sk!.S!));
        },
      });
    await tableClient().send(new PutCommand({ TableName: tableName(), Item: { pk: `${marker}#1`, sk: 'OLD' } }));
    // A day and an hour later, as the reader sees it: the record was trimmed before it was read.
    const late = reader(() => Date.now() + 25 * 3600 * 1000, []);
    try {
      await until(() => warnings.some((w) => /older than 24 h were trimmed/.test(w)));
      expect(handed).toEqual([]);
    } finally {
      await late.stop();
    }
    const filtered = reader(Date.now, [JSON.stringify({ dynamodb: { Keys: { sk: { S: ['KEEP'] } } } })]);
    try {
      await tableClient().send(new PutCommand({ TableName: tableName(), Item: { pk: `${marker}#2`, sk: 'DROP' } }));
      await tableClient().send(new PutCommand({ TableName: tableName(), Item: { pk: `${marker}#3`, sk: 'KEEP' } }));
      await until(() => handed.includes('KEEP'));
      expect(handed).toEqual(['KEEP']);
    } finally {
      await filtered.stop();
    }
  });

  it('starts from the trim horizon with a warning when its checkpoint file was left empty by a kill, and keeps checkpoints whole', async () => {
    const { Table } = await dynamoClient().send(new DescribeTableCommand({ TableName: tableName() }));
    const streamArn = Table!.LatestStreamArn!;
    // The stream's first record (the oldest shard's): where a poller starts that knows no position.
    const [oldest] = await shardsOf(streamArn);
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: oldest!.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    const { Records: first = [] } = await streams.send(new GetRecordsCommand({ ShardIterator, Limit: 1 }));
    expect(first).toHaveLength(1);
    const checkpointFile = join(mkdtempSync(join(tmpdir(), 'checkpoint-')), 'stream-checkpoint.json');
    writeFileSync(checkpointFile, '');
    const warnings: string[] = [];
    let handedFirst: string | undefined;
    const poller = startStreamPoller({
      endpoint: process.env.DYNAMODB_ENDPOINT!,
      region: 'us-east-1',
      streamArn,
      settings: MAPPING,
      checkpointFile,
      onWarning: (message) => warnings.push(message),
      handler: async (event) => {
        handedFirst ??= event.Records[0]?.dynamodb?.SequenceNumber;
        return { batchItemFailures: [] };
      },
    });
    try {
      // The first record handed over is the stream's first: the damaged file meant "from the start".
      await until(() => handedFirst !== undefined);
      expect(handedFirst).toBe(first[0]!.dynamodb!.SequenceNumber);
      expect(warnings.join('\n')).toMatch(/damaged/);
      await until(() => readFileSync(checkpointFile, 'utf8').length > 0);
      expect(() => JSON.parse(readFileSync(checkpointFile, 'utf8'))).not.toThrow();
    } finally {
      await poller.stop();
    }
  });
});
