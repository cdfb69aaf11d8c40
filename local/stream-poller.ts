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
import { passesFilters } from './event-filter.ts';

const SHARD_LIST_TTL_MS = 5_000;
/** DynamoDB Streams keeps a record 24 hours; one no reader took by then is gone. */
export const STREAM_RETENTION_SECONDS = 24 * 3600;

/** The event source mapping's settings the poller applies (from the synthesized template). */
export interface StreamMappingSettings {
  batchSize: number;
  /** Retries of a failing batch before its first record is skipped (-1: until the record expires). */
  retryAttempts?: number;
  /** Records older than this are skipped, not handed over (-1 or absent: only the stream's retention). */
  maxRecordAgeSeconds?: number;
  /** Lambda filter patterns: records no pattern matches are never handed over (and never retried). */
  filterPatterns: readonly string[];
  /** Batches of one shard in hand at once, by partition key (Lambda's ParallelizationFactor; 1 when absent). */
  parallelizationFactor?: number;
}

export interface StreamPollerOptions {
  endpoint: string;
  region: string;
  streamArn: string;
  checkpointFile?: string;
  settings: StreamMappingSettings;
  /** Lambda reads the stream with the function's role: the client gets the same permission check. */
  decorateClient?: (client: DynamoDBStreamsClient) => void;
  /** The clock records are aged by (tests move it). */
  now?: () => number;
  handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;
  onSkip?: (records: DynamoDBRecord[], error: unknown) => void;
  onWarning?: (message: string) => void;
  pollIntervalMs?: number;
}

/** The records split by partition key into `lanes`, each keeping the stream's order (Lambda hashes the partition key likewise). */
function lanesOf(records: DynamoDBRecord[], lanes: number): DynamoDBRecord[][] {
  const split: DynamoDBRecord[][] = Array.from({ length: lanes }, () => []);
  for (const record of records) {
    const key = JSON.stringify(record.dynamodb?.Keys?.pk ?? '');
    let hash = 0;
    for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) | 0;
    split[Math.abs(hash) % lanes]!.push(record);
  }
  return split.filter((lane) => lane.length > 0);
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
    options.decorateClient?.(this.client);
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

  /**
   * What survives to be handed over: records past the stream's retention are gone (as on AWS,
   * where an unread record is trimmed after 24 h), records past the mapping's maximum age go to
   * the on-failure destination, and records no filter pattern matches are dropped.
   */
  private admitted(records: DynamoDBRecord[]): DynamoDBRecord[] {
    const { maxRecordAgeSeconds = -1, filterPatterns } = this.options.settings;
    const now = (this.options.now ?? Date.now)() / 1000;
    const ageOf = (r: DynamoDBRecord) => now - (r.dynamodb?.ApproximateCreationDateTime ?? now);
    const expired = records.filter((r) => ageOf(r) > STREAM_RETENTION_SECONDS);
    if (expired.length) this.options.onWarning?.(`${expired.length} stream record(s) older than 24 h were trimmed before they were read`);
    const live = records.filter((r) => ageOf(r) <= STREAM_RETENTION_SECONDS);
    const tooOld = maxRecordAgeSeconds >= 0 ? live.filter((r) => ageOf(r) > maxRecordAgeSeconds) : [];
    if (tooOld.length) this.options.onSkip?.(tooOld, new Error('record older than the maximum record age'));
    return live.filter((r) => !tooOld.includes(r) && passesFilters(filterPatterns, r));
  }

  /**
   * Delivers `records` in batches; returns when all are processed or skipped. With a
   * parallelization factor above 1, as Lambda does, up to that many batches of the shard are in
   * hand at once, each partition key's records in one lane and so still in order; the position
   * then moves once every lane is through (a restart hands the unfinished records over again).
   */
  private async deliver(shardId: string, records: DynamoDBRecord[]): Promise<void> {
    const admitted = this.admitted(records);
    const factor = this.options.settings.parallelizationFactor ?? 1;
    const done =
      factor <= 1
        ? await this.deliverLane(shardId, admitted, true)
        : (await Promise.all(lanesOf(admitted, factor).map((lane) => this.deliverLane(shardId, lane, false)))).every(Boolean);
    // Every admitted record is handled: the position moves past the filtered-out ones read with them.
    if (done && records.length) this.saveCheckpoint(shardId, records.at(-1)!.dynamodb!.SequenceNumber!);
  }

  /** One lane's records in batches, in order; true when all were processed or skipped. */
  private async deliverLane(shardId: string, records: DynamoDBRecord[], checkpointAsItGoes: boolean): Promise<boolean> {
    const { batchSize, retryAttempts = -1 } = this.options.settings;
    let queue = records;
    let attempts = 0;
    while (queue.length && this.running) {
      const batch = queue.slice(0, batchSize);
      const { failedFrom, failure } = await this.handleBatch(batch);
      const done = batch.slice(0, failedFrom);
      if (done.length && checkpointAsItGoes) this.saveCheckpoint(shardId, done.at(-1)!.dynamodb!.SequenceNumber!);
      queue = queue.slice(failedFrom);
      if (failedFrom === batch.length) {
        attempts = 0;
        continue;
      }
      attempts += done.length ? 0 : 1;
      if (retryAttempts >= 0 && attempts > retryAttempts) {
        this.options.onSkip?.(queue.slice(0, 1), failure);
        if (checkpointAsItGoes) this.saveCheckpoint(shardId, queue[0]!.dynamodb!.SequenceNumber!);
        queue = queue.slice(1);
        attempts = 0;
      } else {
        await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** attempts)));
      }
    }
    return queue.length === 0;
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
