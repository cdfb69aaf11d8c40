/**
 * The stateful part: the one table (from the shared table definition) and the queues of the
 * webhook pipeline (queue, dead-letter queue, and the table stream's failure destination).
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { QUEUE_DEFINITIONS, TABLE_DEFINITION } from '#shared/storage/definition.ts';

/** The construct ids of the stateful resources (logical ids derive from them; the local runtime stands in for each). */
export const DATA_STORE_IDS = {
  table: 'Table',
  webhookQueue: 'WebhookQueue',
  webhookDlq: 'WebhookDeadLetterQueue',
  streamFailures: 'StreamFailureQueue',
  keySecrets: 'ApiKeySecrets',
} as const;

export class DataStore {
  readonly table: dynamodb.Table;
  readonly webhookQueue: sqs.Queue;
  readonly webhookDlq: sqs.Queue;
  readonly streamFailures: sqs.Queue;
  /** API key secrets are derived with this HMAC key (GenerateMac); nothing can read its material. */
  readonly keySecrets: kms.Key;

  constructor(scope: Construct) {
    this.table = DataStore.table(scope);
    this.keySecrets = new kms.Key(scope, DATA_STORE_IDS.keySecrets, {
      description: 'Derives API key secrets from key ids (HMAC); only the API functions and operators may use it',
      keySpec: kms.KeySpec.HMAC_256,
      keyUsage: kms.KeyUsage.GENERATE_VERIFY_MAC,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.keySecrets).acknowledge({
      id: 'AwsSolutions-KMS5',
      reason: 'KMS does not rotate HMAC keys; rotating would change every API key secret, which is what re-issuing keys does.',
    });
    const queueDefaults = { enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED };
    this.webhookDlq = new sqs.Queue(scope, DATA_STORE_IDS.webhookDlq, {
      ...queueDefaults,
      retentionPeriod: Duration.seconds(QUEUE_DEFINITIONS.webhooksDeadLetter.retentionSeconds),
      visibilityTimeout: Duration.seconds(QUEUE_DEFINITIONS.webhooksDeadLetter.visibilityTimeoutSeconds),
    });
    this.webhookQueue = new sqs.Queue(scope, DATA_STORE_IDS.webhookQueue, {
      ...queueDefaults,
      retentionPeriod: Duration.seconds(QUEUE_DEFINITIONS.webhooks.retentionSeconds),
      visibilityTimeout: Duration.seconds(QUEUE_DEFINITIONS.webhooks.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: this.webhookDlq, maxReceiveCount: QUEUE_DEFINITIONS.webhooks.maxReceiveCount },
    });
    this.streamFailures = new sqs.Queue(scope, DATA_STORE_IDS.streamFailures, { ...queueDefaults, retentionPeriod: Duration.days(14) });
    Validations.of(this.streamFailures).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SQS3',
      reason: "This queue is itself the dead-letter destination of the table stream's event source.",
    });
  }

  /**
   * No function that serves requests or processes events may write API key items (`KEY#…`):
   * keys are made and revoked by the admin CLI with the operator's credentials.
   */
  static denyApiKeyWrites(role: iam.IRole | undefined, table: dynamodb.Table): void {
    role?.addToPrincipalPolicy(
      new iam.PolicyStatement({
        effect: iam.Effect.DENY,
        actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
        resources: [table.tableArn],
        conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['KEY#*'] } },
      }),
    );
  }

  private static table(scope: Construct): dynamodb.Table {
    const t = TABLE_DEFINITION;
    const table = new dynamodb.Table(scope, DATA_STORE_IDS.table, {
      partitionKey: { name: t.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: t.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      stream: dynamodb.StreamViewType[t.streamView],
      timeToLiveAttribute: t.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // Encrypted at rest with the AWS-managed key; API key secrets are not in it at all (see ApiKeySecrets).
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of t.globalIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.INCLUDE,
        nonKeyAttributes: [...index.projectedAttributes],
      });
    }
    return table;
  }
}
