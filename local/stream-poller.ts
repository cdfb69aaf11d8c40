/**
 * Feeds DynamoDB Local's stream to the stream-processor handler with Lambda's event-source
 * semantics: batches of up to `batchSize` records per shard in order, partial batch failures
 * (`batchItemFailures`) resume from the first failed record, a failing batch is retried up
 * to `retryAttempts` times before it is skipped (on AWS: sent to the on-failure queue).
 * The position per shard is checkpointed to disk, so a restart resumes where it stopped.
 */
import { readJsonFile, writeFileAtomic } from './durable-file.ts';
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
  handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;
  onSkip?: (records: DynamoDBRecord[], error: unknown) => void;
  onWarning?: (message: string) => void;
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

class StreamPoller {
  private readonly client: DynamoDBStreamsClient;
  private readonly options: StreamPollerOptions;
  private readonly checkpoints: Record<string, string>;
  private readonly iterators = new Map<string, string | null>();
  running = true;
  lastActivityAt = Date.now();
  delivering = false;
  // New shards appear rarely (DynamoDB Local rolls them over after hours): list them every few seconds, not every poll.
  private shards: { ShardId?: string }[] = [];
  private shardsReadAt = 0;

  constructor(options: StreamPollerOptions) {
    this.options = options;
    this.client = new DynamoDBStreamsClient({ endpoint: options.endpoint, region: options.region });
    // A damaged checkpoint means starting from the trim horizon: the consumers are idempotent per record.
    const saved = options.checkpointFile && readJsonFile<Record<string, string>>(options.checkpointFile, (reason) => options.onWarning?.(reason));
    this.checkpoints = saved && typeof saved === 'object' ? saved : {};
  }

  private saveCheckpoint(shardId: string, sequenceNumber: string): void {
    this.checkpoints[shardId] = sequenceNumber;
    if (this.options.checkpointFile) writeFileAtomic(this.options.checkpointFile, JSON.stringify(this.checkpoints));
  }

  private async iteratorFor(shardId: string): Promise<string | null> {
    if (this.iterators.has(shardId)) return this.iterators.get(shardId)!;
    const after = this.checkpoints[shardId];
    const { ShardIterator } = await this.client.send(
      new GetShardIteratorCommand({
        StreamArn: this.options.streamArn,
        ShardId: shardId,
        ShardIteratorType: after ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON',
        ...(after ? { SequenceNumber: after } : {}),
      }),
    );
    this.iterators.set(shardId, ShardIterator ?? null);
    return ShardIterator ?? null;
  }

  /** Hands one batch to the handler: the index of its first failed record (its length when none failed). */
  private async handleBatch(batch: DynamoDBRecord[]): Promise<{ failedFrom: number; failure?: unknown }> {
    try {
      const response = await this.options.handler({ Records: batch });
      const failedIds = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      const index = batch.findIndex((r) => failedIds.has(r.dynamodb!.SequenceNumber!));
      return { failedFrom: index >= 0 ? index : batch.length };
    } catch (error) {
      return { failedFrom: 0, failure: error };
    }
  }

  /** Delivers `records` in batches; returns when all are processed or skipped. */
  private async deliver(shardId: string, records: DynamoDBRecord[]): Promise<void> {
    const { batchSize, retryAttempts } = EVENT_SOURCES.tableStream;
    let queue = records;
    let attempts = 0;
    while (queue.length && this.running) {
      const batch = queue.slice(0, batchSize);
      const { failedFrom, failure } = await this.handleBatch(batch);
      const done = batch.slice(0, failedFrom);
      if (done.length) this.saveCheckpoint(shardId, done.at(-1)!.dynamodb!.SequenceNumber!);
      queue = queue.slice(failedFrom);
      if (failedFrom === batch.length) {
        attempts = 0;
        continue;
      }
      attempts += done.length ? 0 : 1;
      if (attempts > retryAttempts) {
        this.options.onSkip?.(queue.slice(0, 1), failure);
        this.saveCheckpoint(shardId, queue[0]!.dynamodb!.SequenceNumber!);
        queue = queue.slice(1);
        attempts = 0;
      } else {
        await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** attempts)));
      }
    }
  }

  /** One pass over every shard; true when it saw records. */
  private async pollOnce(): Promise<boolean> {
    let sawRecords = false;
    if (Date.now() - this.shardsReadAt > SHARD_LIST_TTL_MS) {
      const { StreamDescription } = await this.client.send(new DescribeStreamCommand({ StreamArn: this.options.streamArn }));
      this.shards = StreamDescription?.Shards ?? [];
      this.shardsReadAt = Date.now();
    }
    for (const shard of this.shards) {
      const shardId = shard.ShardId!;
      const iterator = await this.iteratorFor(shardId);
      if (!iterator) continue;
      const { Records = [], NextShardIterator } = await this.client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      this.iterators.set(shardId, NextShardIterator ?? null);
      const records = Records.map((r) => toLambdaRecord(r, this.options.streamArn, this.options.region));
      if (!records.length) continue;
      sawRecords = true;
      this.delivering = true;
      try {
        await this.deliver(shardId, records);
      } finally {
        this.delivering = false;
        this.lastActivityAt = Date.now();
      }
    }
    return sawRecords;
  }

  async run(): Promise<void> {
    while (this.running) {
      let sawRecords = false;
      try {
        sawRecords = await this.pollOnce();
      } catch (error) {
        if (!this.running) break;
        // An expired iterator or a restarted DynamoDB Local: start again from the checkpoints.
        this.iterators.clear();
        this.shardsReadAt = 0;
        this.options.onSkip?.([], error);
      }
      if (!sawRecords) await new Promise((r) => setTimeout(r, this.options.pollIntervalMs ?? 200));
    }
    this.client.destroy();
  }
}

export function startStreamPoller(options: StreamPollerOptions): { stop: () => Promise<void>; lastActivityAt: () => number } {
  const poller = new StreamPoller(options);
  const loop = poller.run();
  return {
    stop: async () => {
      poller.running = false;
      await loop;
    },
    /** Now while records are being handled (a batch can take minutes), else when the last one was. */
    lastActivityAt: () => (poller.delivering ? Date.now() : poller.lastActivityAt),
  };
}
