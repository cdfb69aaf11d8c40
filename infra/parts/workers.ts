/**
 * The background functions of the worker table: the stream processor and the catalog indexer
 * (the table stream's two readers), the webhook sender on the queue, and the scheduled
 * reconciler and call scheduler.
 */
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { WORKERS, type Worker } from '#functions/workers.ts';
import { FUNCTION_SETTINGS } from '#infra/deployment-settings.ts';
import { EVENT_SOURCES, STREAM_FILTERS } from '#shared/storage/definition.ts';
import { CommerceFunction, workerFunctionId } from './commerce-function.ts';
import { DataStore } from './data-store.ts';

/**
 * Order processing reads customers, variants and rules and writes orders with their events.
 * Its transactions need no action of their own: AWS authorizes each item of a
 * TransactWriteItems as the Put, Update or Delete it is.
 */
const ORDER_PROCESSING_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'];

export class Workers {
  readonly functions: lambda.IFunction[] = [];
  readonly streamProcessor: lambda.IFunction;
  readonly sender: lambda.IFunction;
  private readonly scope: Construct;
  private readonly data: DataStore;
  private readonly environment: Record<string, string>;

  constructor(scope: Construct, data: DataStore, environment: Record<string, string>) {
    this.scope = scope;
    this.data = data;
    this.environment = environment;
    this.streamProcessor = this.tableStreamReaders();
    this.sender = this.webhookSender();
    this.scheduled();
  }

  private worker(w: Worker, timeoutSeconds: number): CommerceFunction {
    const fn = new CommerceFunction(this.scope, workerFunctionId(w.name), {
      entry: w.handler,
      timeoutSeconds,
      memoryMb: FUNCTION_SETTINGS.workerMemoryMb,
      description: w.description,
      environment: this.environment,
      reservedConcurrency: FUNCTION_SETTINGS.workerReservedConcurrency[w.name],
    });
    DataStore.denyApiKeyWrites(fn.role, this.data.table);
    this.functions.push(fn);
    return fn;
  }

  private streamSource(filters?: lambda.FilterCriteria[]) {
    return new DynamoEventSource(this.data.table, {
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: EVENT_SOURCES.tableStream.batchSize,
      maxBatchingWindow: Duration.seconds(EVENT_SOURCES.tableStream.maxBatchingWindowSeconds),
      retryAttempts: EVENT_SOURCES.tableStream.retryAttempts,
      parallelizationFactor: EVENT_SOURCES.tableStream.parallelizationFactor,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(this.data.streamFailures),
      ...(filters ? { filters } : {}),
    });
  }

  private tableStreamReaders(): lambda.IFunction {
    const streamProcessor = this.worker(WORKERS.streamProcessor, FUNCTION_SETTINGS.workerTimeoutSeconds);
    this.data.table.grant(streamProcessor, ...ORDER_PROCESSING_TABLE_ACTIONS);
    this.data.webhookQueue.grantSendMessages(streamProcessor);
    streamProcessor.addEventSource(this.streamSource([lambda.FilterCriteria.filter(STREAM_FILTERS.streamProcessor)]));
    // The stream's second reader (DynamoDB Streams allows two per shard): only product items reach it.
    const catalogIndexer = this.worker(WORKERS.catalogIndexer, FUNCTION_SETTINGS.workerTimeoutSeconds);
    // Index entries are batch-written; the product's stream-work entry is then removed.
    this.data.table.grant(catalogIndexer, 'dynamodb:BatchWriteItem', 'dynamodb:UpdateItem');
    catalogIndexer.addEventSource(this.streamSource([lambda.FilterCriteria.filter(STREAM_FILTERS.catalogIndexer)]));
    return streamProcessor;
  }

  private webhookSender(): lambda.IFunction {
    const sender = this.worker(WORKERS.webhookSender, FUNCTION_SETTINGS.webhookSenderTimeoutSeconds);
    // Each attempt is recorded with conditional puts and updates (shared/webhooks/delivery-store.ts).
    this.data.table.grant(sender, 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem');
    this.data.webhookQueue.grantConsumeMessages(sender);
    // A message that attempted nothing (held) is sent again rather than received again: receives count toward maxReceiveCount.
    this.data.webhookQueue.grantSendMessages(sender);
    // The 8th failure moves the message to the DLQ itself (not by waiting for the receive count).
    this.data.webhookDlq.grantSendMessages(sender);
    sender.addEventSource(
      new SqsEventSource(this.data.webhookQueue, {
        batchSize: EVENT_SOURCES.webhookQueue.batchSize,
        reportBatchItemFailures: true,
        maxConcurrency: EVENT_SOURCES.webhookQueue.maxConcurrency,
      }),
    );
    return sender;
  }

  private scheduled(): void {
    const reconciler = this.worker(WORKERS.reconciler, FUNCTION_SETTINGS.workerTimeoutSeconds);
    // It replays overdue stream work through both stream readers' reactions, so it may do what they do.
    this.data.table.grant(reconciler, ...ORDER_PROCESSING_TABLE_ACTIONS, 'dynamodb:BatchWriteItem');
    this.data.webhookQueue.grantSendMessages(reconciler);
    new events.Rule(this.scope, 'ReconcileSchedule', {
      schedule: events.Schedule.rate(Duration.minutes(FUNCTION_SETTINGS.reconcilerEveryMinutes)),
      targets: [new targets.LambdaFunction(reconciler)],
    });
    // A run paces its calls until the next one starts, so it lasts about the interval; its timeout leaves room for the last batch.
    const sweepSeconds = FUNCTION_SETTINGS.callSchedulerEveryMinutes * 60;
    const callScheduler = this.worker(WORKERS.callScheduler, sweepSeconds + FUNCTION_SETTINGS.workerTimeoutSeconds / 2);
    this.data.table.grant(callScheduler, ...ORDER_PROCESSING_TABLE_ACTIONS);
    new events.Rule(this.scope, 'CallSchedule', {
      schedule: events.Schedule.rate(Duration.minutes(FUNCTION_SETTINGS.callSchedulerEveryMinutes)),
      targets: [new targets.LambdaFunction(callScheduler, { event: events.RuleTargetInput.fromObject({ sweep_seconds: sweepSeconds }) })],
    });
  }
}
