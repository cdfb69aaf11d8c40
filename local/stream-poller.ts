/**
 * Feeds DynamoDB Local's stream to the stream-processor handler with Lambda's event-source
 * semantics: batches of up to `batchSize` records per shard in order, partial batch failures
 * (`batchItemFailures`) resume from the first failed record, a failing batch is retried up
 * to `retryAttempts` times before it is skipped (on AWS: sent to the on-failure queue).
 * The position per shard is checkpointed to disk, so a restart resumes where it stopped.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { EVENT_SOURCES } from '#shared/storage/definition.ts';

const SHARD_LIST_TTL_MS = 5_000;

export interface StreamPollerOptions {
  endpoint: string;
  region: string;
  streamArn: string;
  checkpointFile?: string;
  handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;
  onSkip?: (records: DynamoDBRecord[], error: unknown) => void;
  pollIntervalMs?: number;
}

function toLambdaRecord(record: StreamRecord, streamArn: string, region: string): DynamoDBRecord {
  const d = record.dynamodb!;
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: d.ApproximateCreationDateTime ? Math.floor(d.ApproximateCreationDateTime.getTime() / 1000) : undefined,
      Keys: d.Keys as never,
      NewImage: d.NewImage as never,
      OldImage: d.OldImage as never,
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType as never,
    },
  };
}

export function startStreamPoller(options: StreamPollerOptions): { stop: () => Promise<void>; lastActivityAt: () => number } {
  const client = new DynamoDBStreamsClient({ endpoint: options.endpoint, region: options.region });
  const { batchSize, retryAttempts } = EVENT_SOURCES.tableStream;
  const checkpoints: Record<string, string> =
    options.checkpointFile && existsSync(options.checkpointFile) ? JSON.parse(readFileSync(options.checkpointFile, 'utf8')) : {};
  const iterators = new Map<string, string | null>();
  let running = true;
  let lastActivityAt = Date.now();
  let delivering = false;

  const saveCheckpoint = (shardId: string, sequenceNumber: string) => {
    checkpoints[shardId] = sequenceNumber;
    if (options.checkpointFile) writeFileSync(options.checkpointFile, JSON.stringify(checkpoints));
  };

  async function iteratorFor(shardId: string): Promise<string | null> {
    if (iterators.has(shardId)) return iterators.get(shardId)!;
    const after = checkpoints[shardId];
    const { ShardIterator } = await client.send(
      new GetShardIteratorCommand({
        StreamArn: options.streamArn,
        ShardId: shardId,
        ShardIteratorType: after ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON',
        ...(after ? { SequenceNumber: after } : {}),
      }),
    );
    iterators.set(shardId, ShardIterator ?? null);
    return ShardIterator ?? null;
  }

  /** Delivers `records` in batches; returns when all are processed or skipped. */
  async function deliver(shardId: string, records: DynamoDBRecord[]): Promise<void> {
    let queue = records;
    let attempts = 0;
    while (queue.length && running) {
      const batch = queue.slice(0, batchSize);
      let failedFrom = batch.length;
      let failure: unknown;
      try {
        const response = await options.handler({ Records: batch });
        const failedIds = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        const index = batch.findIndex((r) => failedIds.has(r.dynamodb!.SequenceNumber!));
        if (index >= 0) failedFrom = index;
      } catch (error) {
        failedFrom = 0;
        failure = error;
      }
      const done = batch.slice(0, failedFrom);
      if (done.length) saveCheckpoint(shardId, done.at(-1)!.dynamodb!.SequenceNumber!);
      queue = queue.slice(failedFrom);
      if (failedFrom === batch.length) {
        attempts = 0;
        continue;
      }
      attempts += done.length ? 0 : 1;
      if (attempts > retryAttempts) {
        options.onSkip?.(queue.slice(0, 1), failure);
        saveCheckpoint(shardId, queue[0]!.dynamodb!.SequenceNumber!);
        queue = queue.slice(1);
        attempts = 0;
      } else {
        await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** attempts)));
      }
    }
  }

  // New shards appear rarely (DynamoDB Local rolls them over after hours): list them every few seconds, not every poll.
  let shards: { ShardId?: string }[] = [];
  let shardsReadAt = 0;
  const loop = (async () => {
    while (running) {
      let sawRecords = false;
      try {
        if (Date.now() - shardsReadAt > SHARD_LIST_TTL_MS) {
          const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: options.streamArn }));
          shards = StreamDescription?.Shards ?? [];
          shardsReadAt = Date.now();
        }
        for (const shard of shards) {
          const shardId = shard.ShardId!;
          const iterator = await iteratorFor(shardId);
          if (!iterator) continue;
          const { Records = [], NextShardIterator } = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
          iterators.set(shardId, NextShardIterator ?? null);
          const records = Records.map((r) => toLambdaRecord(r, options.streamArn, options.region));
          if (records.length) {
            sawRecords = true;
            delivering = true;
            try {
              await deliver(shardId, records);
            } finally {
              delivering = false;
              lastActivityAt = Date.now();
            }
          }
        }
      } catch (error) {
        if (!running) break;
        // An expired iterator or a restarted DynamoDB Local: start again from the checkpoints.
        iterators.clear();
        shardsReadAt = 0;
        options.onSkip?.([], error);
      }
      if (!sawRecords) await new Promise((r) => setTimeout(r, options.pollIntervalMs ?? 200));
    }
  })();

  return {
    stop: async () => {
      running = false;
      await loop;
      client.destroy();
    },
    /** Now while records are being handled (a batch can take minutes), else when the last one was. */
    lastActivityAt: () => (delivering ? Date.now() : lastActivityAt),
  };
}
