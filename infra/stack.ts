/**
 * The deployed system, as a list of named parts: the data store (one DynamoDB table and the
 * webhook queues), the partner API (API Gateway REST → one Lambda per route of the route
 * table), the workers (stream processor, catalog indexer, webhook sender, reconciler, call
 * scheduler) and what on-call sees (alarms, their topic, the dashboard).
 *
 * The parts add their resources to the stack itself rather than nesting them in constructs of
 * their own: a nested construct changes every logical id below it, and CloudFormation would
 * replace the table, the queues and the API (a new API URL for every partner) on the next
 * deploy. `test/infra/stack.test.ts` pins the logical ids.
 */
import { CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct, IConstruct } from 'constructs';
import { BASE_PATH, type Route } from '#shared/api/routes.ts';
import { METRICS_NAMESPACE, SERVICE_NAME } from '#shared/observability/metric-names.ts';
import { functionNodeOptions } from './bundling.ts';
import { routeFunctionId, workerFunctionId } from './parts/commerce-function.ts';
import { DataStore } from './parts/data-store.ts';
import { type LiveCallSettings, LiveCalls } from './parts/live-calls.ts';
import { Monitoring } from './parts/monitoring.ts';
import { PartnerApi } from './parts/partner-api.ts';
import { Workers } from './parts/workers.ts';

export interface CommerceStackProps extends StackProps {
  /** Where live tenants' customers are called: nowhere (`sandbox`, every tenant simulated) or Amazon Connect. */
  callPlatform?: 'sandbox' | 'connect';
  /** The Connect instance, its claimed numbers and the dial rate (`callPlatform: 'connect'` only). */
  connect?: LiveCallSettings;
  /** X-Ray subsegments for every DynamoDB and SQS call (costs cold-start time; off by default). */
  traceAwsCalls?: boolean;
  /**
   * Stack traces mapped to the TypeScript sources (`NODE_OPTIONS=--enable-source-maps`): off by
   * default, since Node then reads each bundle's source map at start (tens of ms of every cold
   * start); the maps ship with every bundle either way, so on-call can turn it on with a deploy.
   */
  sourceMapsInStackTraces?: boolean;
  /** The runbook's URL as published, for the alarms' links (`-c runbookUrl=…`); its repository path otherwise. */
  runbookUrl?: string;
  /** The API reference page as partners open it (`-c referenceUrl=…`): every problem then links its code's entry there. */
  referenceUrl?: string;
  /** The routes to deploy; the route table unless a test passes another. */
  routes?: readonly Route[];
}

export class CommerceInterfaceStack extends Stack {
  readonly table: dynamodb.Table;
  readonly api: apigw.RestApi;
  readonly webhookQueue: sqs.Queue;
  readonly webhookDlq: sqs.Queue;

  constructor(scope: Construct, id: string, props: CommerceStackProps = {}) {
    super(scope, id, props);
    const data = new DataStore(this);
    this.table = data.table;
    this.webhookQueue = data.webhookQueue;
    this.webhookDlq = data.webhookDlq;
    const nodeOptions = functionNodeOptions(props.sourceMapsInStackTraces ?? false);
    const baseEnvironment: Record<string, string> = {
      TABLE_NAME: data.table.tableName,
      WEBHOOK_QUEUE_URL: data.webhookQueue.queueUrl,
      WEBHOOK_DLQ_URL: data.webhookDlq.queueUrl,
      CALL_PLATFORM: props.callPlatform ?? 'sandbox',
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
      TRACE_AWS_CALLS: String(props.traceAwsCalls ?? false),
      ...(props.referenceUrl ? { REFERENCE_URL: props.referenceUrl } : {}),
    };
    if (baseEnvironment.CALL_PLATFORM === 'connect' && !props.connect) throw new Error('callPlatform "connect" needs the Connect instance and its numbers');
    const liveCalls = props.connect && baseEnvironment.CALL_PLATFORM === 'connect' ? new LiveCalls(this, data, baseEnvironment, props.connect) : undefined;
    const environment = { ...baseEnvironment, ...liveCalls?.environment };
    const partnerApi = new PartnerApi(this, data, environment, props.routes);
    this.api = partnerApi.api;
    const workers = new Workers(this, data, environment);
    if (liveCalls) {
      // The order pipeline dials, stops, asks after and erases calls; a partner's cancel stops one.
      for (const fn of workers.functions)
        if (['stream-processor', 'reconciler', 'call-scheduler'].some((name) => fn.node.id === workerFunctionId(name))) liveCalls.grant(fn, 'dial');
      liveCalls.grant(partnerApi.functions.find((fn) => fn.node.id === routeFunctionId('cancelOrder'))!, 'stop');
    }
    const monitoring = new Monitoring(
      this,
      data,
      this.api,
      {
        api: partnerApi.functions,
        workers: [...workers.functions, ...(liveCalls?.functions ?? [])],
        streamProcessor: workers.streamProcessor,
        webhookSender: workers.sender,
      },
      props.runbookUrl,
      liveCalls?.contactEventsDlq,
    );

    new CfnOutput(this, 'ApiBaseUrl', { value: `${this.api.url.replace(/\/$/, '')}${BASE_PATH}` });
    new CfnOutput(this, 'TableName', { value: data.table.tableName });
    new CfnOutput(this, 'WebhookQueueUrl', { value: data.webhookQueue.queueUrl });
    new CfnOutput(this, 'WebhookDlqUrl', { value: data.webhookDlq.queueUrl });
    new CfnOutput(this, 'WebhookQueueArn', { value: data.webhookQueue.queueArn });
    new CfnOutput(this, 'WebhookDlqArn', { value: data.webhookDlq.queueArn });
    new CfnOutput(this, 'StreamFailureQueueUrl', { value: data.streamFailures.queueUrl });
    new CfnOutput(this, 'AlarmTopicArn', { value: monitoring.topic.topicArn });
    new CfnOutput(this, 'ApiKeySecretsKeyArn', { value: data.keySecrets.keyArn });
    // The admin CLI refuses a live tenant on a deployment whose calls can only be simulated.
    new CfnOutput(this, 'CallPlatform', { value: environment.CALL_PLATFORM! });
    // The admin CLI refuses a live market whose customers would see no number of their country.
    if (props.connect && liveCalls) new CfnOutput(this, 'CallerIds', { value: JSON.stringify(props.connect.callerIds) });

    this.acknowledgeNagFindings([...partnerApi.functions, ...workers.functions, ...(liveCalls?.functions ?? [])]);
  }

  /**
   * The cdk-nag findings we accept, each on the resources it is about and with its reason (the
   * functions' own, for their execution policy and runtime, are in CommerceFunction).
   */
  private acknowledgeNagFindings(functions: readonly lambda.IFunction[]): void {
    const ack = (scope: IConstruct, id: string, reason: string) => Validations.of(scope).acknowledge({ id, reason });
    ack(
      this.api,
      'AwsSolutions-APIG4',
      'Every route is authenticated by the HMAC authorizer inside its function (docs/partner-guide.md, "A first signed request from the shell"): API Gateway authorizers never see the body, and the signature covers the body hash, checked with the nonce store.',
    );
    ack(this.api, 'AwsSolutions-COG4', 'Partners authenticate with HMAC-signed requests (docs/partner-guide.md), not Cognito user pools.');
    ack(
      this.api,
      'AwsSolutions-APIG2',
      'Requests are validated in the function against the same zod schemas as contract/openapi.json, answering 422 problem+json with JSON pointers that API Gateway validators cannot give.',
    );
    ack(
      this.api,
      'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      'The AWS managed policy API Gateway needs to write its execution and access logs.',
    );
    const tableLogicalId = this.resolve(this.getLogicalId(this.table.node.defaultChild as dynamodb.CfnTable)) as string;
    for (const fn of functions)
      ack(
        fn,
        `AwsSolutions::AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`,
        'Grants reach the indexes of this one table only (its list and due-work GSIs); the actions are still per function.',
      );
  }
}
