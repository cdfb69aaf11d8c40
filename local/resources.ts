/**
 * Creates the table and the queues on the local emulators from the same definitions the
 * CDK app deploys (shared/storage/definition.ts).
 */

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, GetQueueUrlCommand, SetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DATA_STORE_IDS } from '#infra/parts/data-store.ts';
import { TABLE_DEFINITION } from '#shared/storage/definition.ts';
import type { QueueSettings } from './deployment.ts';

const indexSpecification = (i: (typeof TABLE_DEFINITION.globalIndexes)[number]) => ({
  IndexName: i.indexName,
  KeySchema: [
    { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...i.projectedAttributes] },
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

export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<{ tableArn: string; streamArn: string }> {
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
  return { tableArn: Table.TableArn!, streamArn: Table.LatestStreamArn };
}

export interface LocalQueues {
  webhookQueueUrl: string;
  webhookDlqUrl: string;
  webhookDlqArn: string;
  /** The table stream's on-failure destination, as on AWS: one message per skipped batch. */
  streamFailureQueueUrl: string;
  /** Every queue's URL and ARN by its construct id in the stack. */
  byConstructId: Record<string, { Ref: string; Arn: string }>;
}

/**
 * A restart ends the receives of the run before it: their consumers died with it, so their
 * messages are ready at once rather than after their visibility timeout (on AWS one function
 * instance dies, never every consumer at once, and its messages come back when it passes).
 * The emulator's own store, before the emulator opens it; nothing to do on a first start.
 */
export function releaseAbandonedReceives(sqsDataDir: string): void {
  const file = join(sqsDataDir, 'fauxqs.db');
  if (!existsSync(file)) return;
  const db = new DatabaseSync(file);
  try {
    db.exec('UPDATE sqs_messages SET receipt_handle = NULL, visibility_deadline = NULL WHERE receipt_handle IS NOT NULL');
  } finally {
    db.close();
  }
}

/**
 * A queue kept from an earlier run (the emulator keeps its queues and messages in the data
 * directory) takes the template's attributes as they are now, as a deployment would set them,
 * and its URL names the emulator as it listens now (it kept the address of the run that made it).
 */
async function createOrUpdateQueue(client: SQSClient, origin: string, name: string, attributes: Record<string, string>): Promise<string> {
  let url: string;
  try {
    url = (await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl!;
  } catch (error) {
    if ((error as Error).name !== 'QueueNameExists') throw error;
    url = (await client.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl!;
    await client.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: attributes }));
  }
  // Its host (sqs.{region}.{address}) is no valid URL host: only the port is replaced.
  return url.replace(/:\d+\//, `:${new URL(origin).port}/`);
}

/**
 * Creates every queue of the template with its attributes (visibility timeout, retention,
 * redrive policy), dead-letter queues first, named `{prefix}-{construct id}`.
 */
export async function ensureQueues(client: SQSClient, origin: string, prefix: string, settings: ReadonlyMap<string, QueueSettings>): Promise<LocalQueues> {
  const byConstructId: LocalQueues['byConstructId'] = {};
  const ordered = [...settings.values()].sort((a, b) => Number(Boolean(a.redrive)) - Number(Boolean(b.redrive)));
  for (const queue of ordered) {
    const name = `${prefix}-${queue.constructId}`;
    const attributes: Record<string, string> = {
      MessageRetentionPeriod: String(queue.retentionSeconds),
      VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
      MaximumMessageSize: String(queue.maxMessageSizeBytes),
      ...(queue.redrive
        ? {
            RedrivePolicy: JSON.stringify({
              deadLetterTargetArn: byConstructId[queue.redrive.deadLetterConstructId]!.Arn,
              maxReceiveCount: queue.redrive.maxReceiveCount,
            }),
          }
        : {}),
    };
    const QueueUrl = await createOrUpdateQueue(client, origin, name, attributes);
    const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    byConstructId[queue.constructId] = { Ref: QueueUrl!, Arn: Attributes!.QueueArn! };
  }
  const of = (id: string) => byConstructId[id]!;
  return {
    webhookQueueUrl: of(DATA_STORE_IDS.webhookQueue).Ref,
    webhookDlqUrl: of(DATA_STORE_IDS.webhookDlq).Ref,
    webhookDlqArn: of(DATA_STORE_IDS.webhookDlq).Arn,
    streamFailureQueueUrl: of(DATA_STORE_IDS.streamFailures).Ref,
    byConstructId,
  };
}
