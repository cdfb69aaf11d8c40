/**
 * The stack as `cdk synth -c callPlatform=connect …` builds it: the contact flow, the dialog
 * function's association and permission, the contact-events rule, queue, DLQ and alarm, and
 * grants on the instance's contacts for the functions that use them and no others.
 */
import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIVE_CALL_FUNCTIONS, WORKERS } from '#functions/workers.ts';
import { addCommerceStack } from '#infra/commerce-app.ts';
import { FLOW_ACTIONS, FLOW_INVOCATION_LIMIT_SECONDS } from '#shared/calls/connect/contact-flow.ts';

const INSTANCE = 'arn:aws:connect:eu-central-1:123456789012:instance/0d0c4b8e-1111-2222-3333-444455556666';
const CONTEXT = {
  'aws:cdk:bundling-stacks': [],
  callPlatform: 'connect',
  connectInstanceArn: INSTANCE,
  connectCallerIds: '{"DE":"+4930123456","AT":"+431234567"}',
};

const synth = (context: Record<string, unknown>) => Template.fromStack(addCommerceStack(new App({ context })));

let template: Template;
beforeAll(() => {
  template = synth(CONTEXT);
});

type Resource = { Properties: Record<string, unknown> };
const resources = (type: string) => Object.entries(template.findResources(type)) as [string, Resource][];
const statementsOf = (roleLogicalId: string) =>
  resources('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleLogicalId))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement);
const connectActionsOf = (functionId: string): string[] => {
  const [, fn] = resources('AWS::Lambda::Function').find(([id]) => id.startsWith(functionId))!;
  const role = (fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
  return statementsOf(role)
    .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]).map((action) => ({ action, resource: s.Resource })))
    .filter(({ action }) => action.startsWith('connect:'))
    .map(({ action, resource }) => {
      expect(resource, `${functionId} ${action} reaches only the instance's contacts`).toBe(`${INSTANCE}/contact/*`);
      return action;
    })
    .sort();
};

describe('the stack with live calls through Amazon Connect', () => {
  it('deploys the one contact flow, invoking the dialog function within 8 s, made only of the actions the stand-in interprets', () => {
    const [[, flow]] = resources('AWS::Connect::ContactFlow') as [[string, Resource]];
    expect(flow.Properties).toMatchObject({ InstanceArn: INSTANCE, Type: 'CONTACT_FLOW' });
    // The content is a JSON string with the function's ARN joined in.
    const content = JSON.stringify(flow.Properties.Content);
    for (const type of ['InvokeLambdaFunction', 'Compare', 'GetParticipantInput', 'MessageParticipant', 'DisconnectParticipant'])
      expect(content).toContain(type);
    expect(content).toContain(`InvocationTimeLimitSeconds\\":\\"${FLOW_INVOCATION_LIMIT_SECONDS}`);
    expect(content).toContain(FLOW_ACTIONS.firstTurn);
    // Publishing the flow checks the function it invokes is associated with the instance: the association comes first.
    const associationId = resources('AWS::Connect::IntegrationAssociation')[0]![0];
    expect((flow as { DependsOn?: string[] }).DependsOn).toContain(associationId);
  });

  it("refuses a stack outside its Connect instance's region, where no contact event would arrive", () => {
    const rules = template.toJSON().Rules as Record<string, { Assertions: { Assert: unknown }[] }>;
    expect(JSON.stringify(rules.ConnectInstanceRegion!.Assertions[0]!.Assert)).toBe(JSON.stringify({ 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'eu-central-1'] }));
    expect(() => synth({ ...CONTEXT, region: 'us-east-1' })).toThrow('deploy the stack there');
  });

  it('gives every dialer the concurrency quota, and dials with campaign traffic only where it is set', () => {
    template.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: Match.objectLike({ CONNECT_CONCURRENT_CALLS: '10' }) } });
    const campaign = synth({ ...CONTEXT, connectCampaignTraffic: 'true', connectConcurrentCalls: '40' });
    campaign.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: Match.objectLike({ CONNECT_CONCURRENT_CALLS: '40' }) } });
    const content = (flows: Template) => JSON.stringify(Object.values(flows.findResources('AWS::Connect::ContactFlow'))[0]);
    expect(content(campaign)).toContain('CheckOutboundCallStatus');
    expect(content(template)).not.toContain('CheckOutboundCallStatus');
  });

  it('associates the dialog function with the instance, and lets only this instance invoke it', () => {
    template.resourceCountIs('AWS::Connect::IntegrationAssociation', 1);
    template.hasResourceProperties('AWS::Connect::IntegrationAssociation', { InstanceId: INSTANCE, IntegrationType: 'LAMBDA_FUNCTION' });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Principal: 'connect.amazonaws.com',
      SourceArn: INSTANCE,
      Action: 'lambda:InvokeFunction',
    });
  });

  it("routes only this instance's API-placed contacts' ends to a queue with a DLQ, and alarms on the DLQ", () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.connect'],
        'detail-type': ['Amazon Connect Contact Event'],
        detail: { instanceArn: [INSTANCE], initiationMethod: ['API'], eventType: ['DISCONNECTED', 'COMPLETED'] },
      },
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ContactEventsQueue'), 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ContactEventsDeadLetterQueue'), 'Arn'] }, maxReceiveCount: 5 },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: Match.stringLikeRegexp('ContactEventsDlqDepth$'), Threshold: 0 });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: Match.stringLikeRegexp('DialsRefused$'), MetricName: 'DialsRefused', Threshold: 0 });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ContactEventsQueue'), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('grants Connect actions on the instance’s contacts to the functions that use them, and none to any other', () => {
    const dial = ['connect:DescribeContact', 'connect:StartOutboundVoiceContact', 'connect:StopContact', 'connect:UpdateContactAttributes'];
    for (const worker of [WORKERS.streamProcessor, WORKERS.reconciler, WORKERS.callScheduler])
      expect(connectActionsOf(`Worker${worker.name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}`)).toEqual(dial);
    expect(connectActionsOf('FncancelOrder')).toEqual(['connect:StopContact']);
    for (const id of ['FngetOrder', 'FncreateOrder', 'WorkerWebhookSender', 'WorkerCatalogIndexer', 'WorkerCallDialog', 'WorkerContactEvents'])
      expect(connectActionsOf(id), id).toEqual([]);
    expect(Object.values(LIVE_CALL_FUNCTIONS)).toHaveLength(2);
  });

  it('gives every function the instance, its numbers and the dial rate, and the dialers the flow id', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          CALL_PLATFORM: 'connect',
          CONNECT_INSTANCE_ARN: INSTANCE,
          CONNECT_CALLER_IDS: '{"DE":"+4930123456","AT":"+431234567"}',
          CONNECT_DIALS_PER_SECOND: '2',
          CONNECT_CONTACT_FLOW_ID: { 'Fn::Select': [3, { 'Fn::Split': ['/', Match.anyValue()] }] },
        }),
      },
    });
  });

  it('passes cdk-nag AwsSolutions with no unacknowledged finding', () => {
    const app = new App({ context: CONTEXT });
    addCommerceStack(app);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });

  it.each([
    [{ callPlatform: 'twilio' }, 'callPlatform must be "sandbox" or "connect"'],
    [{ callPlatform: 'connect' }, 'needs -c connectInstanceArn'],
    [{ ...CONTEXT, connectCallerIds: '{"DE":"030 123"}' }, 'needs -c connectCallerIds'],
    [{ ...CONTEXT, connectDialsPerSecond: '0' }, 'connectDialsPerSecond must be an integer'],
    [{ ...CONTEXT, connectConcurrentCalls: '0' }, 'connectConcurrentCalls must be an integer'],
  ])('refuses %j at synth, saying what to set', (context, message) => {
    expect(() => synth({ 'aws:cdk:bundling-stacks': [], ...context })).toThrow(message);
  });
});
