/**
 * Live calls through Amazon Connect (`-c callPlatform=connect`): the contact flow every call
 * runs and the dialog function it invokes (its integration association and the permission for
 * `connect.amazonaws.com` from this instance only), the EventBridge rule that sends our
 * contacts' events to a queue (with its dead-letter queue, alarmed by Monitoring) and the worker
 * that records each attempt from them. The instance and its claimed numbers are the
 * platform team's (docs/deploying.md): the stack refers to them and creates nothing in Connect
 * but the flow and the association.
 */
import { Aws, CfnRule, Duration, Fn, Stack, Validations } from 'aws-cdk-lib';
import * as connect from 'aws-cdk-lib/aws-connect';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { LIVE_CALL_FUNCTIONS } from '#functions/workers.ts';
import { FUNCTION_SETTINGS } from '#infra/deployment-settings.ts';
import { contactEventPattern } from '#shared/calls/connect/contact-events.ts';
import { contactFlow } from '#shared/calls/connect/contact-flow.ts';
import { CALL_SLOTS } from '#shared/storage/keys.ts';
import { CommerceFunction, workerFunctionId } from './commerce-function.ts';
import { DataStore } from './data-store.ts';

export const LIVE_CALL_IDS = {
  flow: 'CallContactFlow',
  contactEventsQueue: 'ContactEventsQueue',
  contactEventsDlq: 'ContactEventsDeadLetterQueue',
  contactEventsRule: 'ContactEventsRule',
} as const;

/** What each function may ask of Connect: on this instance's contacts only. */
export const CONNECT_ACTIONS = {
  dial: ['connect:StartOutboundVoiceContact', 'connect:StopContact', 'connect:DescribeContact', 'connect:UpdateContactAttributes'],
  stop: ['connect:StopContact'],
} as const;

export interface LiveCallSettings {
  instanceArn: string;
  callerIds: Record<string, string>;
  campaignTraffic: boolean;
  dialsPerSecond: number;
  concurrentCalls: number;
}

/** AWS::Connect::ContactFlow's Name is at most 127 characters (its CloudFormation resource schema). */
export const CONTACT_FLOW_NAME_MAX = 127;
const FLOW_NAME_SUFFIX = '-order-call';
/** The flow's name: the stack's, shortened to leave room for what it is. */
export const contactFlowName = (stackName: string): string => `${stackName.slice(0, CONTACT_FLOW_NAME_MAX - FLOW_NAME_SUFFIX.length)}${FLOW_NAME_SUFFIX}`;

/** The dialog answers a turn in milliseconds; Connect waits at most 8 s, and the function gives up first. */
const DIALOG_TIMEOUT_SECONDS = 6;

export class LiveCalls {
  readonly functions: lambda.IFunction[] = [];
  readonly contactEventsDlq: sqs.Queue;
  /** The variables every function gets: the instance, its flow, its numbers and the dial rate. */
  readonly environment: Record<string, string>;
  private readonly instanceArn: string;
  private readonly data: DataStore;

  constructor(scope: Construct, data: DataStore, baseEnvironment: Record<string, string>, settings: LiveCallSettings) {
    this.instanceArn = settings.instanceArn;
    this.data = data;
    LiveCalls.requireInstanceRegion(scope, settings.instanceArn);
    const shared = {
      CONNECT_INSTANCE_ARN: settings.instanceArn,
      CONNECT_CALLER_IDS: JSON.stringify(settings.callerIds),
      CONNECT_CAMPAIGN_TRAFFIC: String(settings.campaignTraffic),
      CONNECT_DIALS_PER_SECOND: String(settings.dialsPerSecond),
      CONNECT_CONCURRENT_CALLS: String(settings.concurrentCalls),
    };
    // The dialog function places no call: it needs no flow id (and the flow needs its ARN first).
    const dialog = this.liveFunction(scope, data, LIVE_CALL_FUNCTIONS.dialog, DIALOG_TIMEOUT_SECONDS, { ...baseEnvironment, ...shared });
    // Reads the order and its facts; keeps the customer's choice with the contact.
    data.table.grant(dialog, 'dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:UpdateItem');
    const association = new connect.CfnIntegrationAssociation(scope, 'CallDialogIntegration', {
      instanceId: settings.instanceArn,
      integrationType: 'LAMBDA_FUNCTION',
      integrationArn: dialog.functionArn,
    });
    const flow = new connect.CfnContactFlow(scope, LIVE_CALL_IDS.flow, {
      instanceArn: settings.instanceArn,
      name: contactFlowName(Stack.of(scope).stackName),
      type: 'CONTACT_FLOW',
      description: 'Reads the order back and asks to confirm, cancel or take the suggestion; every decision is the dialog function’s',
      content: Stack.of(scope).toJsonString(contactFlow(dialog.functionArn, { campaignTraffic: settings.campaignTraffic })),
    });
    // Publishing a flow checks that the functions it invokes are associated with the instance.
    flow.addDependency(association);
    dialog.addPermission('InvokedByConnect', {
      principal: new iam.ServicePrincipal('connect.amazonaws.com'),
      sourceArn: settings.instanceArn,
      sourceAccount: Stack.of(scope).account,
    });
    // The flow's id is the last part of its ARN (`…:instance/{instance}/contact-flow/{flow}`), as StartOutboundVoiceContact wants it.
    this.environment = { ...shared, CONNECT_CONTACT_FLOW_ID: Fn.select(3, Fn.split('/', flow.attrContactFlowArn)) };
    const queueDefaults = { enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED };
    this.contactEventsDlq = new sqs.Queue(scope, LIVE_CALL_IDS.contactEventsDlq, { ...queueDefaults, retentionPeriod: Duration.days(14) });
    const queue = new sqs.Queue(scope, LIVE_CALL_IDS.contactEventsQueue, {
      ...queueDefaults,
      visibilityTimeout: Duration.seconds(FUNCTION_SETTINGS.workerTimeoutSeconds * 6),
      deadLetterQueue: { queue: this.contactEventsDlq, maxReceiveCount: 5 },
    });
    new events.Rule(scope, LIVE_CALL_IDS.contactEventsRule, {
      description: "This stack's contacts' ends (Amazon Connect contact events), to the contact events worker",
      eventPattern: contactEventPattern(settings.instanceArn),
      targets: [new targets.SqsQueue(queue)],
    });
    const worker = this.liveFunction(scope, data, LIVE_CALL_FUNCTIONS.contactEvents, FUNCTION_SETTINGS.workerTimeoutSeconds, {
      ...baseEnvironment,
      ...this.environment,
      // An end that names a contact not yet mapped goes back to this queue for a moment (ChangeMessageVisibility, granted with the event source).
      CONTACT_EVENTS_QUEUE_URL: queue.queueUrl,
    });
    data.table.grant(worker, 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query', 'dynamodb:BatchGetItem');
    // A recorded end gives its call's place back (call-slots.ts): deletes on those items only.
    worker.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:DeleteItem'],
        resources: [data.table.tableArn],
        conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [CALL_SLOTS] } },
      }),
    );
    worker.addEventSource(new SqsEventSource(queue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 5 }));
  }

  /**
   * Connect publishes its contact events to EventBridge in the instance's own region only: a
   * stack elsewhere would never hear a call end. CloudFormation refuses the stack in another region.
   */
  private static requireInstanceRegion(scope: Construct, instanceArn: string): void {
    const instanceRegion = instanceArn.split(':')[3]!;
    new CfnRule(scope, 'ConnectInstanceRegion', {
      assertions: [
        {
          assert: Fn.conditionEquals(Aws.REGION, instanceRegion),
          assertDescription: `Deploy this stack in ${instanceRegion}, the region of its Amazon Connect instance: contact events arrive only there.`,
        },
      ],
    });
  }

  /** Lets a function use this instance's contacts: `dial` for the order pipeline (an erasure also deletes their items), `stop` for a cancel. */
  grant(fn: lambda.IFunction, actions: keyof typeof CONNECT_ACTIONS): void {
    if (actions === 'dial') this.data.table.grant(fn, 'dynamodb:DeleteItem');
    const contacts = `${this.instanceArn}/contact/*`;
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...CONNECT_ACTIONS[actions]], resources: [contacts] }));
    Validations.of(fn).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::${contacts}]`,
      reason:
        "A contact's ARN exists only once Connect placed the call: the grant reaches the contacts of this one instance, for the actions this function makes.",
    });
  }

  private liveFunction(
    scope: Construct,
    data: DataStore,
    spec: { name: string; handler: string; description: string },
    timeoutSeconds: number,
    environment: Record<string, string>,
  ): CommerceFunction {
    const fn = new CommerceFunction(scope, workerFunctionId(spec.name), {
      entry: spec.handler,
      timeoutSeconds,
      memoryMb: FUNCTION_SETTINGS.workerMemoryMb,
      description: spec.description,
      environment,
    });
    DataStore.denyApiKeyWrites(fn.role, data.table);
    this.functions.push(fn);
    return fn;
  }
}
