/**
 * The single table and the webhook queues, defined once. The CDK app builds its resources
 * from these values and the local runtime creates DynamoDB Local's table and the SQS
 * emulator's queues from them, so the two can never drift apart.
 */
import { SENDER_INSTANCES } from '../api/limits.ts';

export const TABLE_DEFINITION = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Unix seconds; nonces, idempotency records and expired secrets carry it (DynamoDB TTL). */
  ttlAttribute: 'expires_at',
  streamView: 'NEW_AND_OLD_IMAGES',
  globalIndexes: [
    /**
     * Tenant-scoped lists (products, orders, rules, deliveries), written sharded: see keys.ts.
     * Only the list view is projected: a product's variants (up to 100) are never copied into
     * the index, so list pages and index writes cost what the list shows, not the whole item.
     * `match_keys` (an order's variant ids) lets a product archive find the orders using it.
     */
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projectedAttributes: ['list_view', 'search_text', 'match_keys'] },
    /**
     * Sparse "due work" index: orders due for a call, records whose queue message must exist by
     * `gsi2sk`, items whose stream work is not done. Only what its sweeps read is projected (the
     * order's place in the call queue, the queue message, what names the stream work): a
     * product with 100 variants or a delivery with its payload no longer writes its whole item
     * here on every change. A replay of stream work reads the item itself.
     */
    {
      indexName: 'gsi2',
      partitionKey: 'gsi2pk',
      sortKey: 'gsi2sk',
      projectedAttributes: ['tenant', 'external_order_id', 'priority', 'queue_message', 'entity', 'event_type', 'kind'],
    },
    /**
     * Sparse facet index: each list's entries again, partitioned by the value of one filter
     * (an order's state, a delivery's status, a product's availability, a rule's enabled), so
     * a filtered page reads only what it shows. Added last: CloudFormation adds one index per update.
     */
    { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projectedAttributes: ['list_view', 'search_text', 'match_keys'] },
  ],
} as const;

export const WEBHOOK_MAX_RECEIVE_COUNT = 8;
const FOURTEEN_DAYS = 14 * 24 * 3600;

export const QUEUE_DEFINITIONS = {
  webhooks: {
    /** Six times the sender's timeout, as Lambda's SQS event source requires. */
    visibilityTimeoutSeconds: 360,
    retentionSeconds: FOURTEEN_DAYS,
    maxReceiveCount: WEBHOOK_MAX_RECEIVE_COUNT,
  },
  webhooksDeadLetter: {
    visibilityTimeoutSeconds: 30,
    retentionSeconds: FOURTEEN_DAYS,
  },
} as const;

/** Lambda event-source settings shared by the CDK app and the local pollers. */
export const EVENT_SOURCES = {
  /**
   * Up to 4 batches of one shard in hand at once, each partition key's records still in order:
   * a burst of one tenant's items does not hold back the records of another behind it in the
   * same shard (every shard locally: DynamoDB Local's stream has one).
   */
  tableStream: { batchSize: 100, maxBatchingWindowSeconds: 1, retryAttempts: 10, parallelizationFactor: 4 },
  /**
   * maxConcurrency: at most this many sender instances at once, so a backlog never takes the
   * account's concurrency; twice an endpoint's slots, so one endpoint never holds them all.
   */
  webhookQueue: { batchSize: 10, maxBatchingWindowSeconds: 0, maxConcurrency: SENDER_INSTANCES },
} as const;

/**
 * Lambda event filters of the table stream's two readers (Lambda's filter syntax over the
 * stream record), applied by the event source mapping so a reader is not even invoked for what
 * it ignores. The CDK app sets them and the local stream poller applies them from the template.
 */
/** The name of the stream-work due index (`keys.streamDue`): the catalog indexer's filter matches its partitions. */
export const STREAM_DUE_INDEX = 'STREAMDUE';

/**
 * What the stream processor's reactions act on: orders, their events and results, and reaction
 * jobs. Every other change starts nothing there, and most of the table's writes are such
 * changes: request records, and per webhook attempt the delivery's payload, claim and record, its log
 * entry and the endpoint's slot lease and settlement. Lambda filters them out before it
 * invokes the function, so they cost no invocation and never queue the fan-out behind them.
 */
export const STREAM_PROCESSOR_ENTITIES = ['order', 'event', 'result', 'job'] as const;

export const STREAM_FILTERS = {
  /**
   * Only the entities a reaction acts on (STREAM_PROCESSOR_ENTITIES), and no REMOVE (TTL expiry
   * included): every reaction reads a new image.
   */
  streamProcessor: { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { entity: { S: [...STREAM_PROCESSOR_ENTITIES] } } } },
  /** Only product writes feed the variant index: each carries a stream-work entry (its removal does not). */
  catalogIndexer: { dynamodb: { NewImage: { entity: { S: ['product'] }, gsi2pk: { S: [{ prefix: `${STREAM_DUE_INDEX}#` }] } } } },
} as const;
