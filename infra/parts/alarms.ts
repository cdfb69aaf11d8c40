/** Alarms for on-call, published to one topic: DLQ depth, stream failures, API 5xx and every function's errors. */
import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { DataStore } from './data-store.ts';

export class Alarms {
  readonly topic: sns.Topic;
  private readonly scope: Construct;

  constructor(scope: Construct, data: DataStore, api: apigw.RestApi, functions: readonly lambda.IFunction[]) {
    this.scope = scope;
    this.topic = new sns.Topic(scope, 'AlarmTopic', {
      displayName: 'Commerce Interface alarms',
      enforceSSL: true,
      masterKey: kms.Alias.fromAliasName(scope, 'SnsKey', 'alias/aws/sns'),
    });
    const fiveMinutes = { period: Duration.minutes(5) };
    this.alarm(
      'WebhookDlqDepth',
      data.webhookDlq.metricApproximateNumberOfMessagesVisible(fiveMinutes),
      'Webhook deliveries exhausted their attempts: inspect with `npm run admin -- dlq list` and redrive.',
    );
    this.alarm(
      'StreamFailureDepth',
      data.streamFailures.metricApproximateNumberOfMessagesVisible(fiveMinutes),
      'Stream records failed processing after retries.',
    );
    this.alarm('Api5xx', api.metricServerError({ ...fiveMinutes, statistic: 'Sum' }), 'The API answered 5xx.');
    for (const [i, fn] of functions.entries()) {
      this.alarm(`FunctionErrors${i}`, fn.metricErrors({ ...fiveMinutes, statistic: 'Sum' }), `Lambda errors in ${fn.node.id}.`);
    }
  }

  private alarm(id: string, metric: cloudwatch.IMetric, description: string): void {
    new cloudwatch.Alarm(this.scope, id, {
      metric,
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    }).addAlarmAction(new cwActions.SnsAction(this.topic));
  }
}
