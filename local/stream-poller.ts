/**
 * Feeds DynamoDB Local's stream to the stream-processor handler with Lambda's event-source
 * semantics: batches of up to `batchSize` records per shard in order, partial batch failures
 * (`batchItemFailures`) resume from the first failed record, a failing batch is retried up
 * to `retryAttempts` times before it is skipped (on AWS: sent to the on-failure queue).
 * The position per shard is checkpointed to disk, so a restart resumes where it stopped.
 */

import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { withoutSdkLogging } from '#shared/storage/clients.ts';
import { readJsonFile, writeFileAtomic } from './durable-file.ts';
import { passesFilters } from './event-filter.ts';
import { pipelineFree } from './pipeline-hold.ts';

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
}

/**
 * The wait after a read that found nothing, as Lambda's stream reader waits between reads of a
 * shard (four a second on AWS): a record written just after an empty read waits this long.
 */
export const STREAM_POLL_INTERVAL_MS = 200;

/** The lane of a record: its partition key hashed (Lambda keeps each key's records in one batch stream likewise). */
function laneOf(record: DynamoDBRecord, lanes: number): number {
  const key = JSON.stringify(record.dynamodb?.Keys?.pk ?? '');
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) | 0;
  return Math.abs(hash) % lanes;
}

/** A record handed to a lane, in read order: the position stays before it until it is done. */
interface RecordInHand {
  sequenceNumber: string;
  /** The record read just before it (filtered out or not): the position while this one is not done. */
  after: string | undefined;
  done: boolean;
}

/**
 * Records read but not yet handled, per shard: each lane's queue and whether it is at work,
 * and the records in hand in stream order, so the position moves only past records that are done.
 */
interface ShardWork {
  lanes: { queue: { record: DynamoDBRecord; inHand: RecordInHand }[]; working: Promise<void> | null }[];
  inHand: RecordInHand[];
  /** The last record read: the position once every record in hand is done. */
  lastRead: string | undefined;
}

/**
 * Records a shard may have in hand (admitted by the filters and not yet done): reading stops
 * there until the lanes catch up. A record no filter admits is done as it is read and holds
 * nothing, as on AWS, where the event source mapping drops it: DynamoDB Local's stream is one
 * shard for the whole table, and a burst of other writes (a catalog's variant index entries,
 * request records) must not count against the lane that waits.
 */
export const RECORDS_IN_HAND = 1000;

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
  private readonly work = new Map<string, ShardWork>();
  /** Ends the wait between polls early: a handled batch usually wrote the records the next poll finds. */
  private wake: (() => void) | undefined;
  // New shards appear rarely (DynamoDB Local rolls them over after hours): list them every few seconds, not every poll.
  private shards: { ShardId?: string }[] = [];
  private shardsReadAt = 0;

  constructor(options: StreamPollerOptions) {
    this.options = options;
    this.client = withoutSdkLogging(new DynamoDBStreamsClient({ endpoint: options.endpoint, region: options.region }));
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

  /** True while any lane holds records. */
  get delivering(): boolean {
    return [...this.work.values()].some((w) => w.lanes.some((lane) => lane.working));
  }

  private workOf(shardId: string): ShardWork {
    let work = this.work.get(shardId);
    if (!work) {
      const lanes = Math.max(1, this.options.settings.parallelizationFactor ?? 1);
      work = { lanes: Array.from({ length: lanes }, () => ({ queue: [], working: null })), inHand: [], lastRead: this.checkpoints[shardId] };
      this.work.set(shardId, work);
    }
    return work;
  }

  /**
   * Hands `records` to the shard's lanes. As Lambda does with a ParallelizationFactor, each lane
   * (a partition key's records always in the same one, in order) works through its batches on
   * its own, so a slow batch holds only its lane, while the shard is read on; records no filter
   * admits are done at once. The position moves past a record once it and all before it are done
   * (a restart hands the unfinished ones over again).
   */
  private enqueue(shardId: string, records: DynamoDBRecord[]): void {
    const work = this.workOf(shardId);
    const admitted = new Set(this.admitted(records));
    for (const record of records) {
      const sequenceNumber = record.dynamodb!.SequenceNumber!;
      if (admitted.has(record)) {
        const inHand = { sequenceNumber, after: work.lastRead, done: false };
        work.inHand.push(inHand);
        work.lanes[laneOf(record, work.lanes.length)]!.queue.push({ record, inHand });
      }
      work.lastRead = sequenceNumber;
    }
    this.moveCheckpoint(shardId, work);
    for (const lane of work.lanes) {
      lane.working ??= this.workLane(shardId, work, lane).finally(() => {
        lane.working = null;
        this.lastActivityAt = Date.now();
      });
    }
  }

  private markDone(shardId: string, work: ShardWork, queued: { inHand: RecordInHand }[]): void {
    for (const { inHand } of queued) inHand.done = true;
    this.moveCheckpoint(shardId, work);
  }

  private moveCheckpoint(shardId: string, work: ShardWork): void {
    while (work.inHand[0]?.done) work.inHand.shift();
    const position = work.inHand.length ? work.inHand[0]!.after : work.lastRead;
    if (position && position !== this.checkpoints[shardId]) this.saveCheckpoint(shardId, position);
  }

  /** One lane's records in batches, in order, until its queue is empty or the poller stops. */
  private async workLane(shardId: string, work: ShardWork, lane: ShardWork['lanes'][number]): Promise<void> {
    const { batchSize, retryAttempts = -1 } = this.options.settings;
    let attempts = 0;
    while (lane.queue.length && this.running) {
      const batch = lane.queue.slice(0, batchSize);
      const { failedFrom, failure } = await this.handleBatch(batch.map((queued) => queued.record));
      const done = batch.slice(0, failedFrom);
      lane.queue.splice(0, failedFrom);
      this.markDone(shardId, work, done);
      this.wake?.();
      if (failedFrom === batch.length) {
        attempts = 0;
        continue;
      }
      attempts += done.length ? 0 : 1;
      if (retryAttempts >= 0 && attempts > retryAttempts) {
        const skipped = lane.queue.splice(0, 1);
        this.options.onSkip?.(
          skipped.map((queued) => queued.record),
          failure,
        );
        this.markDone(shardId, work, skipped);
        attempts = 0;
      } else {
        await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** attempts)));
      }
    }
  }

  /** Waits until every lane is idle (at a stop, or before the shards are read again from their checkpoints). */
  private async drain(): Promise<void> {
    for (;;) {
      const working = [...this.work.values()].flatMap((w) => w.lanes.map((lane) => lane.working).filter((p) => p !== null));
      if (!working.length) return;
      await Promise.all(working);
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
      if ((this.work.get(shardId)?.inHand.length ?? 0) >= RECORDS_IN_HAND) continue;
      const iterator = await this.iteratorFor(shardId);
      if (!iterator) continue;
      const { Records = [], NextShardIterator } = await this.client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      this.iterators.set(shardId, NextShardIterator ?? null);
      const records = Records.map((r) => toLambdaRecord(r, this.options.streamArn, this.options.region));
      if (!records.length) continue;
      sawRecords = true;
      this.enqueue(shardId, records);
    }
    return sawRecords;
  }

  async run(): Promise<void> {
    while (this.running) {
      let sawRecords = false;
      await pipelineFree();
      try {
        sawRecords = await this.pollOnce();
      } catch (error) {
        if (!this.running) break;
        // An expired iterator or a restarted DynamoDB Local: start again from the checkpoints,
        // once the records in hand are through (read again, they would be handed over twice).
        await this.drain();
        this.work.clear();
        this.iterators.clear();
        this.shardsReadAt = 0;
        this.options.onSkip?.([], error);
      }
      if (!sawRecords) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, STREAM_POLL_INTERVAL_MS);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
      }
    }
    await this.drain();
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
