import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.ts';
import { WORKERS } from '#functions/workers.ts';
import { WAF_RATE_LIMITS_PER_5_MINUTES } from '#infra/deployment-settings.ts';
import { EDGE_WELL_FORMED_HEADERS } from '#infra/parts/partner-api.ts';
import { CommerceInterfaceStack } from '#infra/stack.ts';
import { ENDPOINT_SLOTS } from '#shared/api/limits.ts';
import { WELL_FORMED_HEADERS } from '#shared/auth/authenticate.ts';
import { GATEWAY_PROBLEMS } from '#shared/http/gateway-responses.ts';
import { repoRoot } from '../support/paths.ts';

let template: Template;
beforeAll(() => {
  // Skipping bundling keeps this test fast; `npx cdk synth` bundles every function for real.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new CommerceInterfaceStack(app, 'Test');
  template = Template.fromStack(stack);
});

describe('the CDK app', () => {
  it('keeps the logical ids of the deployed stateful resources, so no deploy replaces the table, the queues, the API or the alarm topic', () => {
    const ids = Object.keys(template.toJSON().Resources);
    for (const id of [
      'TableCD117FA1',
      'WebhookQueueA9D318EA',
      'WebhookDeadLetterQueue6DD1CE59',
      'StreamFailureQueueC70B334E',
      'ApiF70053CD',
      'AlarmTopicD01E77F9',
    ]) {
      expect(ids).toContain(id);
    }
  });

  it('passes cdk-nag AwsSolutions with no unacknowledged finding', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    new CommerceInterfaceStack(app, 'Nag');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // A finding without a written acknowledgement fails the synthesis, as `npx cdk synth` does.
    expect(() => app.synth()).not.toThrow();
  });

  it('deploys one Node 22 function per route plus every worker, each with the 10 s API timeout', () => {
    const functions = template.findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs22.x' } });
    expect(Object.keys(functions)).toHaveLength(ROUTES.length + Object.keys(WORKERS).length);
    const apiFunctions = Object.values(functions).filter((f) => f.Properties.Timeout === 10);
    expect(apiFunctions).toHaveLength(ROUTES.length);
  });

  it('wires every route of the route table to API Gateway, with a 10 s integration timeout', () => {
    const methods = template.findResources('AWS::ApiGateway::Method', { Properties: { Integration: { Type: 'AWS_PROXY' } } });
    expect(
      Object.values(methods)
        .map((m) => m.Properties.OperationName)
        .sort(),
    ).toEqual(ROUTES.map((r) => r.operationId).sort());
    for (const m of Object.values(methods)) expect(m.Properties.Integration.TimeoutInMillis).toBe(10_000);
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] } });
  });

  it('answers an unsupported method with a 405 problem that carries Allow and the request id, as every other answer does', () => {
    const mocks = Object.values(template.findResources('AWS::ApiGateway::Method', { Properties: { HttpMethod: 'ANY', Integration: { Type: 'MOCK' } } }));
    expect(mocks.length).toBeGreaterThan(10);
    for (const method of mocks as {
      Properties: { Integration: { IntegrationResponses: { StatusCode: string; ResponseParameters: Record<string, string> }[] } };
    }[]) {
      const [response] = method.Properties.Integration.IntegrationResponses;
      expect(response).toMatchObject({
        StatusCode: '405',
        ResponseParameters: { 'method.response.header.X-Request-Id': 'context.requestId', 'method.response.header.Allow': expect.any(String) },
      });
    }
  });

  it('has one on-demand table with pk/sk, three GSIs (the facet index projecting only list views), a NEW_AND_OLD_IMAGES stream, TTL and point-in-time recovery', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      GlobalSecondaryIndexes: [
        Match.objectLike({ IndexName: 'gsi1' }),
        Match.objectLike({ IndexName: 'gsi2' }),
        Match.objectLike({
          IndexName: 'gsi3',
          KeySchema: [
            { AttributeName: 'gsi3pk', KeyType: 'HASH' },
            { AttributeName: 'gsi3sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['list_view', 'search_text', 'match_keys'] },
        }),
      ],
    });
  });

  it('has the webhook queue with a 14-day DLQ after 8 receives, consumed with partial batch failures', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { maxReceiveCount: 8, deadLetterTargetArn: Match.anyValue() },
      MessageRetentionPeriod: 1209600,
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: Match.objectLike({ 'Fn::GetAtt': Match.arrayWith([Match.stringLikeRegexp('WebhookQueue')]) }),
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      StartingPosition: 'TRIM_HORIZON',
      // One tenant's burst in a shard does not hold back another's records behind it.
      ParallelizationFactor: 4,
    });
  });

  it('alarms on DLQ depth, API 5xx and errors of every function', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    const metrics = alarms.map((a) => a.Properties.MetricName);
    expect(metrics).toContain('ApproximateNumberOfMessagesVisible');
    expect(metrics).toContain('5XXError');
    expect(metrics.filter((m) => m === 'Errors')).toHaveLength(ROUTES.length + Object.keys(WORKERS).length);
  });

  describe('on-call', () => {
    const resources = () => template.toJSON().Resources as Record<string, { Type: string; Properties: any }>;
    const alarms = () => Object.entries(resources()).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm');
    const runbook = readFileSync(join(repoRoot, 'docs', 'runbook.md'), 'utf8');
    /** Each runbook section's alarm: its name, and the metric and threshold its **Alarm** line gives. */
    const documented = [...runbook.matchAll(/^## (\w+)\n[^#]*?- \*\*Alarm\*\*: `[^`]+` `(\w+)`[^\n]*?[<>] (\d+)/gm)].map((m) => ({
      name: m[1]!,
      metric: m[2]!,
      threshold: Number(m[3]),
    }));

    it('publishes to a topic encrypted with a customer-managed key that CloudWatch may use, on alarm and on OK', () => {
      const topic = Object.values(template.findResources('AWS::SNS::Topic'))[0]!;
      const keyId = topic.Properties.KmsMasterKeyId['Fn::GetAtt'][0] as string;
      const key = resources()[keyId]!;
      expect(key.Type).toBe('AWS::KMS::Key');
      expect(key.Properties.EnableKeyRotation).toBe(true);
      const forCloudWatch = (key.Properties.KeyPolicy.Statement as { Principal?: { Service?: string }; Action: string | string[] }[]).find(
        (s) => s.Principal?.Service === 'cloudwatch.amazonaws.com',
      );
      expect([forCloudWatch?.Action].flat()).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:GenerateDataKey*']));
      for (const [, alarm] of alarms()) {
        expect(alarm.Properties.AlarmActions).toHaveLength(1);
        expect(alarm.Properties.OKActions).toEqual(alarm.Properties.AlarmActions);
        expect(alarm.Properties.AlarmDescription).toMatch(/Runbook: docs\/runbook\.md#\w+$/);
      }
    });

    it('has every alarm the runbook names, with its metric and threshold, and a runbook section for every alarm', () => {
      expect(documented.map((d) => d.name)).toEqual([
        'Api5xx',
        'ApiLatencyP99',
        'LambdaThrottles',
        'StreamIteratorAge',
        'StreamFailureDepth',
        'ContactEventsDlqDepth',
        'DialsRefused',
        'WebhookDlqDepth',
        'WebhookQueueBacklog',
        'DeliverySuccessRate',
        'OverdueCalls',
        'WebhookSenderFailures',
        'Errors',
      ]);
      const byName = new Map(alarms().map(([, a]) => [(a.Properties.AlarmName as string).replace(/^Test-/, ''), a.Properties]));
      // Deployed only with callPlatform=connect: test/infra/live-calls.test.ts holds that stack to it.
      const liveCallsOnly = new Set(['ContactEventsDlqDepth', 'DialsRefused']);
      for (const d of documented.filter((x) => x.name !== 'Errors' && !liveCallsOnly.has(x.name))) {
        const alarm = byName.get(d.name);
        expect(alarm, d.name).toBeDefined();
        expect(alarm!.Threshold, d.name).toBe(d.threshold);
        const metricNames = alarm!.MetricName
          ? [alarm!.MetricName]
          : (alarm!.Metrics as { MetricStat?: { Metric: { MetricName: string } } }[]).map((m) => m.MetricStat?.Metric.MetricName);
        expect(metricNames, d.name).toContain(d.metric);
      }
      const sections = new Set(documented.map((d) => d.name));
      for (const name of byName.keys()) expect(sections.has(name.startsWith('Errors') ? 'Errors' : name), `runbook section for ${name}`).toBe(true);
    });

    it('keeps every alarm id when a route is added to the route table', () => {
      const extra = { ...ROUTES[0]!, operationId: 'aNewRoute', path: '/a-new-route' };
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const withRoute = Template.fromStack(new CommerceInterfaceStack(app, 'Test', { routes: [extra, ...ROUTES] }));
      const after = Object.keys(withRoute.findResources('AWS::CloudWatch::Alarm'));
      const before = alarms().map(([id]) => id);
      expect(after).toEqual(expect.arrayContaining(before));
      expect(after).toHaveLength(before.length + 1);
    });

    it('traces API → function always, and every DynamoDB and SQS call only when deployed with traceAwsCalls', () => {
      template.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: true });
      for (const fn of Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs22.x' } }))) {
        expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
        expect(fn.Properties.Environment.Variables.TRACE_AWS_CALLS).toBe('false');
      }
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const traced = Template.fromStack(new CommerceInterfaceStack(app, 'Traced', { traceAwsCalls: true }));
      for (const fn of Object.values(traced.findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs22.x' } }))) {
        expect(fn.Properties.Environment.Variables.TRACE_AWS_CALLS).toBe('true');
      }
    });

    it('maps stack traces to the sources only when deployed with sourceMapsInStackTraces, ', () => {
      const functions = (t: Template) => Object.values(t.findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs22.x' } }));
      for (const fn of functions(template)) expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBeUndefined();
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const mapped = Template.fromStack(new CommerceInterfaceStack(app, 'Mapped', { sourceMapsInStackTraces: true }));
      for (const fn of functions(mapped)) expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
    });

    it('links the runbook where it is published, when the stack is given its URL', () => {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const linked = Template.fromStack(new CommerceInterfaceStack(app, 'Linked', { runbookUrl: 'https://wiki.example.com/commerce/runbook' }));
      const descriptions = Object.values(linked.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties.AlarmDescription as string);
      expect(descriptions.every((d) => /Runbook: https:\/\/wiki\.example\.com\/commerce\/runbook#\w+$/.test(d))).toBe(true);
    });

    it('links every problem to its entry on the reference page where the stack is given its URL, the gateway’s own answers included', () => {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const linked = Template.fromStack(new CommerceInterfaceStack(app, 'Documented', { referenceUrl: 'https://developers.example.com/commerce/reference' }));
      const functions = (t: Template) => Object.values(t.findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs22.x' } }));
      for (const fn of functions(linked)) expect(fn.Properties.Environment.Variables.REFERENCE_URL).toBe('https://developers.example.com/commerce/reference');
      const responses = Object.values(linked.findResources('AWS::ApiGateway::GatewayResponse'));
      expect(responses.length).toBeGreaterThan(5);
      for (const response of responses) {
        const body = JSON.parse(response.Properties.ResponseTemplates['application/json']);
        expect(body.doc_url).toBe(`https://developers.example.com/commerce/reference#problem-${body.code}`);
      }
      // Without one, no problem carries a link it could not keep.
      for (const fn of functions(template)) expect(fn.Properties.Environment.Variables.REFERENCE_URL).toBeUndefined();
    });

    it('has one dashboard with the API, functions, stream, queues, deliveries and business rows', () => {
      const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
      expect(dashboards).toHaveLength(1);
      const body = JSON.stringify(dashboards[0]!.Properties.DashboardBody);
      for (const title of [
        'API latency p99 per route',
        'Function errors',
        'Function throttles',
        'Stream iterator age',
        'Webhook queue and DLQ depth',
        'Oldest message age',
        'Delivery attempts by outcome',
        'Delivery latency',
        'Orders by final state',
        'Call attempts by disposition',
        'Worker concurrency',
      ]) {
        expect(body, title).toContain(title);
      }
    });
  });

  it("turns API Gateway's own errors into problem+json", () => {
    for (const problem of GATEWAY_PROBLEMS) {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: problem.responseType,
        ResponseParameters: Match.objectLike({ 'gatewayresponse.header.Content-Type': "'application/problem+json'" }),
        ResponseTemplates: { 'application/json': Match.stringLikeRegexp(`"code":"${problem.code}"`) },
      });
    }
  });

  it('grants each API function only the table actions it uses, never a wildcard action', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const actions = policies.flatMap((p) => p.Properties.PolicyDocument.Statement.flatMap((s: { Action: string | string[] }) => [s.Action].flat()));
    expect(actions.filter((a) => a.startsWith('dynamodb:') && a.includes('*'))).toEqual([]);
    expect(actions).not.toContain('dynamodb:Scan');
  });

  it('limits at the edge per key id and address above any granted key rate, and requests without well-formed signature headers low per address; a block is a 429 problem with Retry-After and a request id', () => {
    const unsignedScope = {
      NotStatement: {
        Statement: {
          AndStatement: {
            Statements: Object.entries(EDGE_WELL_FORMED_HEADERS).map(([name, form]) => ({
              RegexMatchStatement: {
                FieldToMatch: { SingleHeader: { Name: name } },
                RegexString: form.source,
                TextTransformations: [{ Priority: 0, Type: 'NONE' }],
              },
            })),
          },
        },
      },
    };
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      Rules: [
        Match.objectLike({
          Statement: {
            RateBasedStatement: {
              Limit: WAF_RATE_LIMITS_PER_5_MINUTES.perKeyAndAddress,
              AggregateKeyType: 'CUSTOM_KEYS',
              CustomKeys: [{ Header: { Name: 'x-svc-key-id', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } }, { IP: {} }],
            },
          },
          Action: { Block: {} },
          VisibilityConfig: Match.objectLike({ SampledRequestsEnabled: false }),
        }),
        Match.objectLike({
          Statement: {
            RateBasedStatement: { Limit: WAF_RATE_LIMITS_PER_5_MINUTES.unsignedPerAddress, AggregateKeyType: 'IP', ScopeDownStatement: unsignedScope },
          },
          Action: { Block: {} },
          VisibilityConfig: Match.objectLike({ SampledRequestsEnabled: false }),
        }),
        // Every request, whatever its headers: made-up key ids cannot buy one host a bucket each.
        Match.objectLike({
          Statement: { RateBasedStatement: { Limit: WAF_RATE_LIMITS_PER_5_MINUTES.perAddress, AggregateKeyType: 'IP' } },
          Action: { Block: {} },
        }),
      ],
    });
    // The edge takes a key id only in the shape the service issues; every key the service makes has it.
    expect(EDGE_WELL_FORMED_HEADERS['x-svc-key-id']!.source).not.toBe(WELL_FORMED_HEADERS['x-svc-key-id']!.source);
    for (const issued of ['key_test_0123456789abcdef01234567', 'key_live_0123456789abcdef01234567', 'key_0123456789abcdef'])
      expect(EDGE_WELL_FORMED_HEADERS['x-svc-key-id']!.test(issued), issued).toBe(true);
    for (const madeUp of ['key_aaaa', 'attacker-123', 'key_test_ZZZZ0123456789abcdef0123'])
      expect(EDGE_WELL_FORMED_HEADERS['x-svc-key-id']!.test(madeUp), madeUp).toBe(false);
    // Twice the largest rate a key can be granted, over the rule's 5 minutes: a partner's own traffic never meets it.
    expect(WAF_RATE_LIMITS_PER_5_MINUTES.perAddress).toBeGreaterThanOrEqual(2 * 10_000 * 300);
    // Above the largest rate a key can be granted, over the rule's 5 minutes.
    expect(WAF_RATE_LIMITS_PER_5_MINUTES.perKeyAndAddress).toBeGreaterThan(10_000 * 300);
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'WAF_FILTERED',
      StatusCode: '429',
      ResponseParameters: Match.objectLike({ 'gatewayresponse.header.Retry-After': "'60'" }),
      ResponseTemplates: { 'application/json': Match.stringLikeRegexp('"request_id":"\\$context.requestId"') },
    });
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
    for (const type of ['THROTTLED', 'QUOTA_EXCEEDED']) {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: '429',
        ResponseParameters: Match.objectLike({ 'gatewayresponse.header.Retry-After': Match.anyValue() }),
      });
    }
  });

  it('reserves (and caps) concurrency for every worker and caps the webhook queue source, so no backlog starves the API', () => {
    // Workers run a minute or more (the call scheduler a minute and a half); API functions 10 s.
    const workers = Object.values(template.findResources('AWS::Lambda::Function')).filter((fn) => fn.Properties.Timeout >= 60);
    expect(workers).toHaveLength(Object.keys(WORKERS).length);
    for (const fn of Object.values(workers)) expect(fn.Properties.ReservedConcurrentExecutions).toBeGreaterThan(0);
    const apiFunctions = template.findResources('AWS::Lambda::Function', { Properties: { Timeout: 10 } });
    for (const fn of Object.values(apiFunctions)) expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: Match.anyValue() } });
  });

  it('lets a call sweep pace its calls over its minute: the rule tells it the interval, its timeout leaves room for the last batch', () => {
    const rule = Object.values(template.findResources('AWS::Events::Rule')).find(
      (r) => r.Properties.ScheduleExpression === 'rate(1 minute)' && String(r.Properties.Targets[0].Input ?? '').includes('sweep_seconds'),
    );
    expect(JSON.parse(rule!.Properties.Targets[0].Input)).toEqual({ sweep_seconds: 60 });
    const scheduler = Object.values(template.findResources('AWS::Lambda::Function')).find((fn) => fn.Properties.Timeout === 90);
    expect(scheduler?.Properties.Description).toBe(WORKERS.callScheduler.description);
  });

  it('gives the webhook sender twice the instances one endpoint may hold attempts in, so an endpoint that answers nothing never holds them all', () => {
    const [mapping] = Object.values(template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { ScalingConfig: Match.anyValue() } }));
    const sender = template.findResources('AWS::Lambda::Function')[mapping!.Properties.FunctionName.Ref as string]!;
    expect(mapping!.Properties.ScalingConfig.MaximumConcurrency).toBeGreaterThanOrEqual(2 * ENDPOINT_SLOTS);
    expect(sender.Properties.ReservedConcurrentExecutions).toBeGreaterThanOrEqual(2 * ENDPOINT_SLOTS);
  });

  describe('API key secrets', () => {
    /** Every statement of the policies attached to a function's role. */
    const statementsOf = (fn: { Properties: { Role: { 'Fn::GetAtt': [string, string] } } }) => {
      const role = fn.Properties.Role['Fn::GetAtt'][0];
      return Object.values(template.findResources('AWS::IAM::Policy'))
        .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as { Effect: string; Action: string | string[]; Condition?: unknown }[]);
    };
    const actions = (s: { Action: string | string[] }) => [s.Action].flat();
    const functions = () => Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs22.x' } })) as never[];
    const isApi = (fn: { Properties: { Timeout: number } }) => fn.Properties.Timeout === 10;

    it('are derived by a KMS HMAC key that only the API functions may use', () => {
      template.hasResourceProperties('AWS::KMS::Key', { KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' });
      for (const fn of functions()) {
        const canMac = statementsOf(fn).some((s) => s.Effect === 'Allow' && actions(s).includes('kms:GenerateMac'));
        const env = (fn as { Properties: { Environment: { Variables: Record<string, unknown> } } }).Properties.Environment.Variables;
        expect(canMac).toBe(isApi(fn));
        expect('KEY_SECRETS_KMS_KEY_ID' in env).toBe(isApi(fn));
      }
    });

    it('can be written by no function: every role is denied writes to KEY# items', () => {
      for (const fn of functions()) {
        const deny = statementsOf(fn).find((s) => s.Effect === 'Deny' && actions(s).includes('dynamodb:PutItem'));
        expect(deny?.Condition).toEqual({ 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['KEY#*'] } });
        expect(actions(deny!)).toEqual(
          // Transactions need no entry: AWS authorizes each of their items as the Put, Update or Delete it is.
          expect.arrayContaining(['dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']),
        );
      }
    });
  });
});
