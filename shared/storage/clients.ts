/**
 * The AWS resources a function is bound to (table, queues) and the SDK clients for them, built
 * once per function instance. Locally they point at DynamoDB Local and the SQS emulator; on
 * Lambda at the region's endpoints. The only module below the composition roots that reads
 * the configuration: resources are where the deployment put them.
 */

import type { ConnectClient } from '@aws-sdk/client-connect';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import { runtimeConfig } from '../config/runtime.ts';
import { retryDelayMs } from './transient.ts';

export type AwsService = 'dynamodb' | 'sqs' | 'kms' | 'connect';
export type ClientDecorator = (service: AwsService, client: DynamoDBClient | SQSClient | KMSClient | ConnectClient) => void;
const decorators: ClientDecorator[] = [];

/**
 * The SDK's logger middleware renders every call's input and output for its logger even when
 * that logger logs nothing (the default one has an `info` that does nothing): it walked every
 * attribute of every item through the operation's schema, seconds of CPU in a catalog batch.
 * The functions log through their own logger, never the SDK's; so does the local runtime.
 */
export const withoutSdkLogging = <C extends { middlewareStack: { remove(name: string): boolean } }>(client: C): C => {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
};
/** Wraps every client a function builds: tracing on AWS; locally also the fault switch and the permission check. */
export const decorateClients = (decorator: ClientDecorator): void => void decorators.push(decorator);
/** Applies the decorators to a client built outside this module (the key secrets' KMS client). */
export const decorated = <C extends DynamoDBClient | SQSClient | KMSClient | ConnectClient>(service: AwsService, client: C): C => {
  for (const decorate of decorators) decorate(service, client);
  return client;
};

let documentClient: DynamoDBDocumentClient | undefined;
let rawClient: DynamoDBClient | undefined;
let sqsClient: SQSClient | undefined;

export function dynamoClient(): DynamoDBClient {
  const config = runtimeConfig();
  if (rawClient) return rawClient;
  rawClient = withoutSdkLogging(
    new DynamoDBClient({
      region: config.region,
      ...(config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint } : {}),
      // Lambda's default of 3 attempts is too few for DynamoDB throttling during batch imports;
      // short delays keep all six within the API's 10 s.
      retryStrategy: new ConfiguredRetryStrategy(6, retryDelayMs),
    }),
  );
  for (const decorate of decorators) decorate('dynamodb', rawClient);
  return rawClient;
}

export function tableClient(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(dynamoClient(), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return documentClient;
}

export function queueClient(): SQSClient {
  if (sqsClient) return sqsClient;
  const config = runtimeConfig();
  sqsClient = withoutSdkLogging(
    new SQSClient({
      region: config.region,
      retryStrategy: new ConfiguredRetryStrategy(4, retryDelayMs),
      ...(config.sqsEndpoint ? { endpoint: config.sqsEndpoint } : {}),
    }),
  );
  for (const decorate of decorators) decorate('sqs', sqsClient);
  return sqsClient;
}

export const tableName = () => runtimeConfig().tableName;

/** The webhook queue and its dead-letter queue. */
export const queueUrls = () => ({ webhook: runtimeConfig().webhookQueueUrl, deadLetter: runtimeConfig().webhookDlqUrl });

/** How long stream-driven work may wait for its stream record before the sweeps take it (STREAM_RECOVERY_SECONDS). */
export const streamRecoverySeconds = () => runtimeConfig().streamRecoverySeconds;

/** How long a record waits for its queue message to be handled before the reconciler sends it again (QUEUE_REDELIVERY_GRACE_SECONDS). */
export const queueRedeliveryGraceSeconds = () => runtimeConfig().queueRedeliveryGraceSeconds;
