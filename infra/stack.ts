/**
 * The deployed system: API Gateway (REST, regional) → one Lambda per route of the route
 * table → one DynamoDB table → its stream → stream processor → SQS → webhook sender, with a
 * DLQ for exhausted deliveries, alarms for on-call, and problem+json gateway responses.
 */
import { join } from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ROUTES } from '#functions/routes.ts';
import { BASE_PATH, type Route } from '#shared/api/routes.ts';
import { WORKERS, type Worker } from '#functions/workers.ts';
import { BUNDLE_OPTIONS, SDK_EXTERNAL_MODULES } from './bundling.ts';
import { GATEWAY_PROBLEMS, gatewayProblemBody, gatewayStatus } from '#shared/http/gateway-responses.ts';
import { renderProblem } from '#shared/http/problem.ts';
import { MethodNotAllowedError } from '#shared/errors.ts';
import { EVENT_SOURCES, FUNCTION_SETTINGS, QUEUE_DEFINITIONS, TABLE_DEFINITION } from '#shared/storage/definition.ts';

const repoRoot = join(import.meta.dirname, '..');

/** DynamoDB actions every HTTP function needs: key and tenant reads, nonce, rate window, idempotency. */
/** Order processing reads customers, variants and rules and writes orders with their events. */
const ORDER_PROCESSING_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:Query',
  'dynamodb:BatchGetItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:TransactWriteItems',
];

export const PIPELINE_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];

export interface CommerceStackProps extends StackProps {
  /** Which call platform adapter the workers use; only the sandbox dialer exists so far. */
  callPlatform?: 'sandbox';
}

export class CommerceInterfaceStack extends Stack {
  readonly table: dynamodb.Table;
  readonly api: apigw.RestApi;
  readonly webhookQueue: sqs.Queue;
  readonly webhookDlq: sqs.Queue;

  constructor(scope: Construct, id: string, props: CommerceStackProps = {}) {
    super(scope, id, props);

    const t = TABLE_DEFINITION;
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: t.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: t.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      stream: dynamodb.StreamViewType[t.streamView],
      timeToLiveAttribute: t.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // API key secrets live in this table: encrypted at rest with a KMS key.
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of t.globalIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
        ...(index.projectedAttributes === 'all'
          ? { projectionType: dynamodb.ProjectionType.ALL }
          : { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.projectedAttributes] }),
      });
    }

    const queueDefaults = { enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED };
    this.webhookDlq = new sqs.Queue(this, 'WebhookDeadLetterQueue', {
      ...queueDefaults,
      retentionPeriod: Duration.seconds(QUEUE_DEFINITIONS.webhooksDeadLetter.retentionSeconds),
      visibilityTimeout: Duration.seconds(QUEUE_DEFINITIONS.webhooksDeadLetter.visibilityTimeoutSeconds),
    });
    this.webhookQueue = new sqs.Queue(this, 'WebhookQueue', {
      ...queueDefaults,
      retentionPeriod: Duration.seconds(QUEUE_DEFINITIONS.webhooks.retentionSeconds),
      visibilityTimeout: Duration.seconds(QUEUE_DEFINITIONS.webhooks.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: this.webhookDlq, maxReceiveCount: QUEUE_DEFINITIONS.webhooks.maxReceiveCount },
    });
    const streamFailures = new sqs.Queue(this, 'StreamFailureQueue', {
      ...queueDefaults,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(streamFailures).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SQS3',
      reason: "This queue is itself the dead-letter destination of the table stream's event source.",
    });

    const environment = {
      TABLE_NAME: this.table.tableName,
      WEBHOOK_QUEUE_URL: this.webhookQueue.queueUrl,
      WEBHOOK_DLQ_URL: this.webhookDlq.queueUrl,
      CALL_PLATFORM: props.callPlatform ?? 'sandbox',
      POWERTOOLS_SERVICE_NAME: 'commerce-interface',
      NODE_OPTIONS: '--enable-source-maps',
    };
    const makeFunction = (id: string, entry: string, timeoutSeconds: number, memoryMb: number, description: string) => {
      const logGroup = new logs.LogGroup(this, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
      return new NodejsFunction(this, id, {
        entry: join(repoRoot, entry),
        handler: 'handler',
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: memoryMb,
        timeout: Duration.seconds(timeoutSeconds),
        description,
        environment,
        logGroup,
        loggingFormat: lambda.LoggingFormat.JSON,
        projectRoot: repoRoot,
        depsLockFilePath: join(repoRoot, 'package-lock.json'),
        bundling: {
          minify: BUNDLE_OPTIONS.minify,
          sourceMap: true,
          format: OutputFormat.ESM,
          target: BUNDLE_OPTIONS.target,
          mainFields: [...BUNDLE_OPTIONS.mainFields],
          externalModules: SDK_EXTERNAL_MODULES,
          banner: BUNDLE_OPTIONS.banner,
          esbuildArgs: Object.fromEntries(Object.entries(BUNDLE_OPTIONS.alias).map(([from, to]) => [`--alias:${from}`, to])),
          forceDockerBundling: false,
        },
      });
    };

    this.api = new apigw.RestApi(this, 'Api', {
      restApiName: 'commerce-interface-v1',
      description: 'Commerce Interface v1 (partner API)',
      endpointTypes: [apigw.EndpointType.REGIONAL],
      cloudWatchRole: true,
      deployOptions: {
        stageName: 'live',
        // Execution logs carry errors only and never request or response data.
        loggingLevel: apigw.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        throttlingRateLimit: 1000,
        throttlingBurstLimit: 2000,
        accessLogDestination: new apigw.LogGroupLogDestination(
          new logs.LogGroup(this, 'ApiAccessLogs', { retention: logs.RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY }),
        ),
        accessLogFormat: apigw.AccessLogFormat.jsonWithStandardFields({
          caller: false,
          httpMethod: true,
          ip: true,
          protocol: true,
          requestTime: true,
          resourcePath: true,
          responseLength: true,
          status: true,
          user: false,
        }),
      },
    });
    for (const problem of GATEWAY_PROBLEMS) {
      this.api.addGatewayResponse(`Gateway${problem.responseType}`, {
        type: apigw.ResponseType.of(problem.responseType),
        statusCode: String(gatewayStatus(problem)),
        responseHeaders: { 'Content-Type': "'application/problem+json'", 'X-Request-Id': 'context.requestId' },
        templates: { 'application/json': gatewayProblemBody(problem, '$context.requestId', '$context.path') },
      });
    }

    const alarmTopic = new sns.Topic(this, 'AlarmTopic', {
      displayName: 'Commerce Interface alarms',
      enforceSSL: true,
      masterKey: kms.Alias.fromAliasName(this, 'SnsKey', 'alias/aws/sns'),
    });
    const alarm = (id: string, metric: cloudwatch.IMetric, description: string) =>
      new cloudwatch.Alarm(this, id, {
        metric,
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      }).addAlarmAction(new cwActions.SnsAction(alarmTopic));

    const functions: lambda.IFunction[] = [];
    const methodsByPath = new Map<string, Route[]>();
    for (const route of ROUTES) {
      const fn = makeFunction(
        `Fn${route.operationId}`,
        route.handler,
        FUNCTION_SETTINGS.apiTimeoutSeconds,
        FUNCTION_SETTINGS.apiMemoryMb,
        `${route.method} ${route.path}`,
      );
      this.table.grant(fn, ...PIPELINE_TABLE_ACTIONS, ...(route.tableActions ?? []).map((a) => `dynamodb:${a}`));
      if (route.queueActions?.includes('send')) this.webhookQueue.grantSendMessages(fn);
      const resource = this.api.root.resourceForPath(BASE_PATH + route.path);
      resource.addMethod(route.method, new apigw.LambdaIntegration(fn, { timeout: Duration.seconds(FUNCTION_SETTINGS.apiTimeoutSeconds) }), {
        operationName: route.operationId,
      });
      methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route]);
      functions.push(fn);
    }
    // REST APIs answer a known path with an unknown method as "missing authentication token";
    // a mock ANY method answers 405 method_not_allowed with Allow instead.
    for (const [path, routes] of methodsByPath) {
      const allowed = routes.map((r) => r.method);
      const problem = renderProblem(new MethodNotAllowedError(allowed), '$context.path', '$context.requestId');
      this.api.root.resourceForPath(BASE_PATH + path).addMethod(
        'ANY',
        new apigw.MockIntegration({
          passthroughBehavior: apigw.PassthroughBehavior.WHEN_NO_TEMPLATES,
          requestTemplates: { 'application/json': '{"statusCode": 405}' },
          integrationResponses: [
            {
              statusCode: '405',
              responseParameters: {
                'method.response.header.Allow': `'${allowed.join(', ')}'`,
                'method.response.header.Content-Type': "'application/problem+json'",
              },
              responseTemplates: { 'application/json': JSON.stringify(problem.body) },
            },
          ],
        }),
        {
          operationName: `methodNotAllowed${path.replace(/\W/g, '_')}`,
          methodResponses: [{ statusCode: '405', responseParameters: { 'method.response.header.Allow': true, 'method.response.header.Content-Type': true } }],
        },
      );
    }

    const worker = (w: Worker, timeoutSeconds: number) =>
      makeFunction(
        `Worker${w.name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}`,
        w.handler,
        timeoutSeconds,
        FUNCTION_SETTINGS.workerMemoryMb,
        w.description,
      );

    const streamProcessor = worker(WORKERS.streamProcessor, FUNCTION_SETTINGS.workerTimeoutSeconds);
    Validations.of(streamProcessor).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason: "dynamodb:ListStreams has no resource-level permissions; Lambda's DynamoDB event source requires it on *.",
    });
    this.table.grant(streamProcessor, ...ORDER_PROCESSING_TABLE_ACTIONS);
    this.webhookQueue.grantSendMessages(streamProcessor);
    const streamSource = (filters?: lambda.FilterCriteria[]) =>
      new DynamoEventSource(this.table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: EVENT_SOURCES.tableStream.batchSize,
        maxBatchingWindow: Duration.seconds(EVENT_SOURCES.tableStream.maxBatchingWindowSeconds),
        retryAttempts: EVENT_SOURCES.tableStream.retryAttempts,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(streamFailures),
        ...(filters ? { filters } : {}),
      });
    streamProcessor.addEventSource(streamSource());

    // The stream's second reader (DynamoDB Streams allows two per shard): only product items reach it.
    const catalogIndexer = worker(WORKERS.catalogIndexer, FUNCTION_SETTINGS.workerTimeoutSeconds);
    Validations.of(catalogIndexer).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason: "dynamodb:ListStreams has no resource-level permissions; Lambda's DynamoDB event source requires it on *.",
    });
    this.table.grant(catalogIndexer, 'dynamodb:BatchWriteItem');
    catalogIndexer.addEventSource(
      streamSource([lambda.FilterCriteria.filter({ dynamodb: { NewImage: { entity: { S: lambda.FilterRule.isEqual('product') } } } })]),
    );

    const sender = worker(WORKERS.webhookSender, FUNCTION_SETTINGS.webhookSenderTimeoutSeconds);
    this.table.grant(sender, 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem');
    this.webhookQueue.grantConsumeMessages(sender);
    // The 8th failure moves the message to the DLQ itself (not by waiting for the receive count).
    this.webhookDlq.grantSendMessages(sender);
    sender.addEventSource(new SqsEventSource(this.webhookQueue, { batchSize: EVENT_SOURCES.webhookQueue.batchSize, reportBatchItemFailures: true }));

    const reconciler = worker(WORKERS.reconciler, FUNCTION_SETTINGS.workerTimeoutSeconds);
    this.table.grant(reconciler, 'dynamodb:Query', 'dynamodb:UpdateItem');
    this.webhookQueue.grantSendMessages(reconciler);
    new events.Rule(this, 'ReconcileSchedule', {
      schedule: events.Schedule.rate(Duration.minutes(FUNCTION_SETTINGS.reconcilerEveryMinutes)),
      targets: [new targets.LambdaFunction(reconciler)],
    });
    const callScheduler = worker(WORKERS.callScheduler, FUNCTION_SETTINGS.workerTimeoutSeconds);
    this.table.grant(callScheduler, ...ORDER_PROCESSING_TABLE_ACTIONS);
    new events.Rule(this, 'CallSchedule', {
      schedule: events.Schedule.rate(Duration.minutes(FUNCTION_SETTINGS.callSchedulerEveryMinutes)),
      targets: [new targets.LambdaFunction(callScheduler)],
    });
    functions.push(streamProcessor, catalogIndexer, sender, reconciler, callScheduler);

    alarm(
      'WebhookDlqDepth',
      this.webhookDlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      'Webhook deliveries exhausted their attempts: inspect with `npm run admin -- dlq list` and redrive.',
    );
    alarm(
      'StreamFailureDepth',
      streamFailures.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      'Stream records failed processing after retries.',
    );
    alarm('Api5xx', this.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }), 'The API answered 5xx.');
    functions.forEach((fn, i) =>
      alarm(`FunctionErrors${i}`, fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }), `Lambda errors in ${fn.node.id}.`),
    );

    new CfnOutput(this, 'ApiBaseUrl', { value: `${this.api.url.replace(/\/$/, '')}${BASE_PATH}` });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'WebhookQueueUrl', { value: this.webhookQueue.queueUrl });
    new CfnOutput(this, 'WebhookDlqUrl', { value: this.webhookDlq.queueUrl });
    new CfnOutput(this, 'WebhookQueueArn', { value: this.webhookQueue.queueArn });
    new CfnOutput(this, 'WebhookDlqArn', { value: this.webhookDlq.queueArn });
    new CfnOutput(this, 'AlarmTopicArn', { value: alarmTopic.topicArn });

    this.acknowledgeNagFindings();
  }

  /** Every cdk-nag finding we accept, each with its reason. */
  private acknowledgeNagFindings(): void {
    const ack = (id: string, reason: string) => Validations.of(this).acknowledge({ id, reason });
    ack(
      'AwsSolutions-APIG4',
      'Every route is authenticated by the in-function HMAC authorizer (contract-decisions section 1): API Gateway authorizers never see the body, and the contract needs the body hash and the nonce store together.',
    );
    ack('AwsSolutions-COG4', 'Partners authenticate with HMAC-signed requests (contract-decisions section 1), not Cognito user pools.');
    ack(
      'AwsSolutions-APIG2',
      'Requests are validated in the function against the same zod schemas as the OpenAPI contract, answering 422 problem+json with JSON pointers that API Gateway validators cannot give.',
    );
    ack(
      'AwsSolutions-APIG3',
      'No WAF: per-key rate limiting runs in the request pipeline and stage throttling caps the API; a WAF web ACL can be attached by the platform team per account.',
    );
    ack(
      'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      "The AWS managed basic execution policy grants only writing to the function's logs.",
    );
    ack(
      'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      'The AWS managed policy API Gateway needs to write its execution and access logs.',
    );
    const tableLogicalId = this.resolve(this.getLogicalId(this.table.node.defaultChild as dynamodb.CfnTable)) as string;
    ack(
      `AwsSolutions::AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`,
      'Grants reach the indexes of this one table only (its list and due-work GSIs); the actions are still per function.',
    );
    ack('AwsSolutions-L1', 'The project pins Node 22 (nodejs22.x) as its Lambda runtime and local runtime on purpose.');
  }
}
