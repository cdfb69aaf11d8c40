/**
 * What on-call sees: one alarm topic (encrypted with a key CloudWatch may use, so alarms can
 * publish to it), the alarms that need a person (each with a stable id and name, OK actions
 * and a runbook link), and one dashboard. docs/runbook.md has a section per alarm.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { FUNCTION_SETTINGS } from '#infra/deployment-settings.ts';
import { METRIC, METRICS_NAMESPACE, SERVICE_NAME } from '#shared/observability/metric-names.ts';
import { EVENT_SOURCES } from '#shared/storage/definition.ts';
import type { DataStore } from './data-store.ts';

/** Where alarms link to: the runbook as this repository is published (`-c runbookUrl=…`), else its path in the repository. */
export const DEFAULT_RUNBOOK = 'docs/runbook.md';

export interface MonitoredFunctions {
  api: readonly lambda.IFunction[];
  workers: readonly lambda.IFunction[];
  streamProcessor: lambda.IFunction;
  webhookSender: lambda.IFunction;
}

interface AlarmSpec {
  /** Construct id, alarm name suffix and runbook anchor: never derived from a position in a list. */
  id: string;
  metric: cloudwatch.IMetric;
  threshold: number;
  evaluationPeriods?: number;
  comparison?: cloudwatch.ComparisonOperator;
  what: string;
}

const fiveMinutes = Duration.minutes(5);
/** Our own metrics: Powertools adds the `service` dimension to each. */
const custom = (metricName: string, statistic: string, dimensionsMap: Record<string, string> = {}) =>
  new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    statistic,
    period: fiveMinutes,
    dimensionsMap: { service: SERVICE_NAME, ...dimensionsMap },
  });

export class Monitoring {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;
  private readonly scope: Construct;

  private readonly runbook: string;

  constructor(scope: Construct, data: DataStore, api: apigw.RestApi, functions: MonitoredFunctions, runbook = DEFAULT_RUNBOOK, contactEventsDlq?: sqs.IQueue) {
    this.scope = scope;
    this.runbook = runbook;
    const key = new kms.Key(scope, 'AlarmTopicKey', {
      description: 'Encrypts the alarm topic; CloudWatch may use it to publish alarms',
      enableKeyRotation: true,
    });
    key.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new sns.Topic(scope, 'AlarmTopic', { displayName: 'Commerce Interface alarms', enforceSSL: true, masterKey: key });
    for (const spec of this.alarmSpecs(data, api, functions)) this.alarm(spec);
    if (contactEventsDlq) {
      this.alarm({
        id: 'ContactEventsDlqDepth',
        metric: contactEventsDlq.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes }),
        threshold: 0,
        what: 'Amazon Connect contact events could not be recorded after 5 receives: those attempts are recorded at their deadline from DescribeContact instead, or as failed.',
      });
      this.alarm({
        id: 'DialsRefused',
        metric: custom(METRIC.dialsRefused, 'Sum'),
        threshold: 0,
        what: "Amazon Connect refused a dial's destination (its country is not on the instance's allowlist, or the number may not be called): those orders ended unreachable without a call.",
      });
    }
    this.dashboard = this.dashboardOf(data, api, functions);
  }

  private alarmSpecs(data: DataStore, api: apigw.RestApi, fns: MonitoredFunctions): AlarmSpec[] {
    const deliveries = (outcome: string) => custom(METRIC.deliveryAttempts, 'Sum', { outcome });
    return [
      {
        id: 'Api5xx',
        metric: api.metricServerError({ period: fiveMinutes, statistic: 'Sum' }),
        threshold: 5,
        what: 'The API answered more than 5 server errors in 5 minutes.',
      },
      {
        id: 'ApiLatencyP99',
        metric: api.metricLatency({ period: fiveMinutes, statistic: 'p99' }),
        threshold: 5000,
        evaluationPeriods: 3,
        what: "The API's p99 latency stayed above 5 s for 15 minutes (the function timeout is 10 s).",
      },
      {
        id: 'LambdaThrottles',
        metric: new cloudwatch.Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', statistic: 'Sum', period: fiveMinutes }),
        threshold: 0,
        what: "Lambda throttled invocations in this account and region (the API functions share the account's unreserved concurrency).",
      },
      {
        id: 'StreamIteratorAge',
        metric: fns.streamProcessor.metric('IteratorAge', { period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: 300_000,
        evaluationPeriods: 5,
        what: 'The stream processor is more than 5 minutes behind the table stream.',
      },
      {
        id: 'StreamFailureDepth',
        metric: data.streamFailures.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes }),
        threshold: 0,
        what: "Stream batches were given up after their retries (the stream's on-failure queue).",
      },
      {
        id: 'WebhookDlqDepth',
        metric: data.webhookDlq.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes }),
        threshold: 0,
        what: 'Webhook deliveries exhausted their 8 attempts and were dead-lettered.',
      },
      {
        id: 'WebhookQueueBacklog',
        metric: data.webhookQueue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }),
        threshold: 1000,
        evaluationPeriods: 3,
        what: 'More than 1,000 deliveries waited to be sent for 15 minutes (retries in backoff are not visible, so this is the sender falling behind).',
      },
      {
        id: 'DeliverySuccessRate',
        metric: new cloudwatch.MathExpression({
          expression: 'IF(delivered + retrying + dead > 50, 100 * delivered / (delivered + retrying + dead), 100)',
          usingMetrics: { delivered: deliveries('delivered'), retrying: deliveries('retrying'), dead: deliveries('dead_lettered') },
          period: Duration.minutes(15),
        }),
        threshold: 50,
        evaluationPeriods: 2,
        comparison: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        what: 'Fewer than half of all delivery attempts succeeded for 30 minutes, across all tenants: more than receivers being down.',
      },
      {
        id: 'OverdueCalls',
        metric: custom(METRIC.overdueCalls, 'Minimum'),
        threshold: 0,
        evaluationPeriods: 3,
        what: 'For 15 minutes every call sweep left orders waiting that were due before the sweep before it: calls start later than their contact time.',
      },
      {
        id: 'WebhookSenderFailures',
        metric: custom(METRIC.senderFailures, 'Sum'),
        threshold: 0,
        what: 'The webhook sender could not handle a delivery message (our failure, not a receiver answering badly); the message comes back.',
      },
      ...[...fns.api, ...fns.workers].map((fn) => ({
        id: `Errors${fn.node.id}`,
        metric: fn.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
        threshold: 0,
        what: `${fn.node.id} failed invocations (an uncaught error, a timeout or a crash).`,
      })),
    ];
  }

  private alarm(spec: AlarmSpec): void {
    const anchor = spec.id.startsWith('Errors') ? 'errors' : spec.id.toLowerCase();
    const alarm = new cloudwatch.Alarm(this.scope, spec.id, {
      alarmName: `${Stack.of(this.scope).stackName}-${spec.id}`,
      metric: spec.metric,
      threshold: spec.threshold,
      comparisonOperator: spec.comparison ?? cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: spec.evaluationPeriods ?? 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: `${spec.what} Runbook: ${this.runbook}#${anchor}`,
    });
    alarm.addAlarmAction(new cwActions.SnsAction(this.topic));
    alarm.addOkAction(new cwActions.SnsAction(this.topic));
    this.alarms.push(alarm);
  }

  private dashboardOf(data: DataStore, api: apigw.RestApi, fns: MonitoredFunctions): cloudwatch.Dashboard {
    const stackName = Stack.of(this.scope).stackName;
    const reserved = Object.entries(FUNCTION_SETTINGS.workerReservedConcurrency)
      .map(([name, n]) => `${name} ${n}`)
      .join(', ');
    const dashboard = new cloudwatch.Dashboard(this.scope, 'Dashboard', { dashboardName: `${stackName}-operations` });
    dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown: `# Commerce Interface v1\nAlarms publish to the alarm topic; each has a section in the [runbook](${this.runbook}). Worker concurrency (reserved and capped): ${reserved}; webhook queue source at most ${EVENT_SOURCES.webhookQueue.maxConcurrency} at once.`,
        width: 24,
        height: 2,
      }),
    );
    dashboard.addWidgets(
      graph(
        'API requests, 4xx, 5xx',
        [api.metricCount({ period: fiveMinutes }), api.metricClientError({ period: fiveMinutes }), api.metricServerError({ period: fiveMinutes })],
        8,
      ),
      graph('API latency p99 per route (ms)', [search(`{AWS/ApiGateway,ApiName,Method,Resource,Stage}`, 'Latency', 'p99', `ApiName="${api.restApiName}"`)], 8),
      graph('Requests by route and status class', [search(`{${METRICS_NAMESPACE},route,service,status_class}`, METRIC.requests, 'Sum')], 8),
    );
    dashboard.addWidgets(
      graph('Function errors', [search('{AWS/Lambda,FunctionName}', 'Errors', 'Sum', stackName)], 8),
      graph('Function throttles', [search('{AWS/Lambda,FunctionName}', 'Throttles', 'Sum', stackName)], 8),
      graph('Function duration p99 (ms)', [search('{AWS/Lambda,FunctionName}', 'Duration', 'p99', stackName)], 8),
    );
    dashboard.addWidgets(...pipelineRow(data, fns));
    dashboard.addWidgets(
      graph('Delivery attempts by outcome', byDimension(METRIC.deliveryAttempts, 'outcome', ['delivered', 'retrying', 'dead_lettered']), 8),
      graph(
        'Delivery latency p50/p99 (ms, event written → 2xx)',
        [custom(METRIC.deliveryLatency, 'p50'), custom(METRIC.deliveryLatency, 'p99'), custom(METRIC.fanOutLag, 'p99')],
        8,
      ),
      graph('Attempts per delivery, reconciler re-sends', [custom(METRIC.attemptsPerDelivery, 'Average'), custom(METRIC.reconcilerResends, 'Sum')], 8),
    );
    dashboard.addWidgets(
      graph('Orders by final state and outcome', [search(`{${METRICS_NAMESPACE},business_outcome,service,state}`, METRIC.ordersFinal, 'Sum')]),
      graph('Call attempts by disposition', [search(`{${METRICS_NAMESPACE},disposition,service}`, METRIC.callAttempts, 'Sum')]),
      graph('Worker concurrency', [search('{AWS/Lambda,FunctionName}', 'ConcurrentExecutions', 'Maximum', stackName)]),
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 12, height: 6 }),
    );
    return dashboard;
  }
}

const graph = (title: string, left: cloudwatch.IMetric[], width = 12) => new cloudwatch.GraphWidget({ title, left, width, height: 6 });

/** Every metric of a schema (`{Namespace,Dim1,Dim2}`) with that name; `filter` narrows by a term (our functions' names carry the stack's). */
const search = (schema: string, metricName: string, statistic: string, filter = '') =>
  new cloudwatch.MathExpression({
    expression: `SEARCH('${schema} MetricName="${metricName}" ${filter}', '${statistic}', 300)`,
    label: '',
    period: fiveMinutes,
  });

const byDimension = (metricName: string, dimension: string, values: readonly string[], statistic = 'Sum') =>
  values.map((v) => custom(metricName, statistic, { [dimension]: v }).with({ label: v }));

function pipelineRow(data: DataStore, fns: MonitoredFunctions): cloudwatch.IWidget[] {
  return [
    graph('Stream iterator age (ms)', [fns.streamProcessor.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) })], 6),
    graph(
      'Webhook queue and DLQ depth',
      [
        data.webhookQueue.metricApproximateNumberOfMessagesVisible(),
        data.webhookQueue.metricApproximateNumberOfMessagesNotVisible(),
        data.webhookDlq.metricApproximateNumberOfMessagesVisible(),
      ],
      6,
    ),
    graph('Oldest message age (s)', [data.webhookQueue.metricApproximateAgeOfOldestMessage(), data.webhookDlq.metricApproximateAgeOfOldestMessage()], 6),
    graph('Stream failures, sender errors', [data.streamFailures.metricApproximateNumberOfMessagesVisible(), fns.webhookSender.metricErrors()], 6),
  ];
}
