/**
 * Creates the table and the queues on the local emulators from the same definitions the
 * CDK app deploys (shared/storage/definition.ts).
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { QUEUE_DEFINITIONS, TABLE_DEFINITION } from '#shared/storage/definition.ts';

const indexSpecification = (i: (typeof TABLE_DEFINITION.globalIndexes)[number]) => ({
  IndexName: i.indexName,
  KeySchema: [
    { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection:
    i.projectedAttributes === 'all' ? { ProjectionType: 'ALL' as const } : { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...i.projectedAttributes] },
});

/** A data folder from an older version keeps working: an index added since is created on it (one per update, as on AWS). */
async function addMissingIndexes(client: DynamoDBClient, tableName: string, present: Set<string | undefined>) {
  for (const index of TABLE_DEFINITION.globalIndexes.filter((i) => !present.has(i.indexName))) {
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [index.partitionKey, index.sortKey].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        GlobalSecondaryIndexUpdates: [{ Create: indexSpecification(index) }],
      }),
    );
  }
}

export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<string> {
  const t = TABLE_DEFINITION;
  const attributes = [t.partitionKey, t.sortKey, ...t.globalIndexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: t.partitionKey, KeyType: 'HASH' },
          { AttributeName: t.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: t.globalIndexes.map(indexSpecification),
        StreamSpecification: { StreamEnabled: true, StreamViewType: t.streamView },
      }),
    );
    await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: t.ttlAttribute, Enabled: true } }));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (!Table?.LatestStreamArn) throw new Error(`Table ${tableName} has no stream`);
  await addMissingIndexes(client, tableName, new Set((Table.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName)));
  return Table.LatestStreamArn;
}

export interface LocalQueues {
  webhookQueueUrl: string;
  webhookDlqUrl: string;
  webhookDlqArn: string;
  /** The table stream's on-failure destination, as on AWS: one message per skipped batch. */
  streamFailureQueueUrl: string;
}

export async function ensureQueues(client: SQSClient, prefix: string): Promise<LocalQueues> {
  const dlq = QUEUE_DEFINITIONS.webhooksDeadLetter;
  const main = QUEUE_DEFINITIONS.webhooks;
  const { QueueUrl: webhookDlqUrl } = await client.send(
    new CreateQueueCommand({
      QueueName: `${prefix}-${dlq.logicalName}`,
      Attributes: { MessageRetentionPeriod: String(dlq.retentionSeconds), VisibilityTimeout: String(dlq.visibilityTimeoutSeconds) },
    }),
  );
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: webhookDlqUrl, AttributeNames: ['QueueArn'] }));
  const webhookDlqArn = Attributes!.QueueArn!;
  const { QueueUrl: webhookQueueUrl } = await client.send(
    new CreateQueueCommand({
      QueueName: `${prefix}-${main.logicalName}`,
      Attributes: {
        MessageRetentionPeriod: String(main.retentionSeconds),
        VisibilityTimeout: String(main.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: webhookDlqArn, maxReceiveCount: main.maxReceiveCount }),
      },
    }),
  );
  const { QueueUrl: streamFailureQueueUrl } = await client.send(
    new CreateQueueCommand({ QueueName: `${prefix}-stream-failures`, Attributes: { MessageRetentionPeriod: String(14 * 86_400) } }),
  );
  return { webhookQueueUrl: webhookQueueUrl!, webhookDlqUrl: webhookDlqUrl!, webhookDlqArn, streamFailureQueueUrl: streamFailureQueueUrl! };
}
