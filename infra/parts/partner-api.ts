/**
 * The partner API: a regional REST API with problem+json gateway responses, one function per
 * route of the route table (least-privilege table actions), and a 405 for every known path
 * called with a method it does not have.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { ROUTES } from '#functions/routes.ts';
import { FUNCTION_SETTINGS, WAF_RATE_LIMITS_PER_5_MINUTES } from '#infra/deployment-settings.ts';
import { BASE_PATH, type Route } from '#shared/api/routes.ts';
import { ISSUED_KEY_ID, WELL_FORMED_HEADERS } from '#shared/auth/authenticate.ts';
import { MethodNotAllowedError } from '#shared/errors.ts';
import { GATEWAY_PROBLEMS, gatewayProblemBody, gatewayStatus } from '#shared/http/gateway-responses.ts';
import { renderProblem } from '#shared/http/problem.ts';
import { CommerceFunction, routeFunctionId } from './commerce-function.ts';
import { DataStore } from './data-store.ts';

/** DynamoDB actions every HTTP function needs: key and tenant reads, nonce, rate window, idempotency. */
/** The headers' forms at the edge: the service's own, the key id only in the shape the service issues. */
export const EDGE_WELL_FORMED_HEADERS: Readonly<Record<string, RegExp>> = { ...WELL_FORMED_HEADERS, 'x-svc-key-id': ISSUED_KEY_ID };

export const PIPELINE_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];

const accessLogFormat = apigw.AccessLogFormat.jsonWithStandardFields({
  caller: false,
  httpMethod: true,
  ip: true,
  protocol: true,
  requestTime: true,
  resourcePath: true,
  responseLength: true,
  status: true,
  user: false,
});

export class PartnerApi {
  readonly api: apigw.RestApi;
  readonly functions: lambda.IFunction[] = [];

  private readonly routes: readonly Route[];

  constructor(scope: Construct, data: DataStore, environment: Record<string, string>, routes: readonly Route[] = ROUTES) {
    this.routes = routes;
    this.api = new apigw.RestApi(scope, 'Api', {
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
        tracingEnabled: true,
        throttlingRateLimit: 1000,
        throttlingBurstLimit: 2000,
        accessLogDestination: new apigw.LogGroupLogDestination(
          new logs.LogGroup(scope, 'ApiAccessLogs', { retention: logs.RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY }),
        ),
        accessLogFormat,
      },
    });
    for (const problem of GATEWAY_PROBLEMS) {
      this.api.addGatewayResponse(`Gateway${problem.responseType}`, {
        type: apigw.ResponseType.of(problem.responseType),
        statusCode: String(gatewayStatus(problem)),
        responseHeaders: {
          'Content-Type': "'application/problem+json'",
          'X-Request-Id': 'context.requestId',
          ...(problem.retryAfterSeconds ? { 'Retry-After': `'${problem.retryAfterSeconds}'` } : {}),
        },
        templates: { 'application/json': gatewayProblemBody(problem, '$context.requestId', '$context.path', environment.REFERENCE_URL) },
      });
    }
    for (const route of routes) this.functions.push(this.routeFunction(scope, route, data, environment));
    this.methodNotAllowed();
    this.firewall(scope);
  }

  private routeFunction(scope: Construct, route: Route, data: DataStore, environment: Record<string, string>): lambda.IFunction {
    const fn = new CommerceFunction(scope, routeFunctionId(route.operationId), {
      entry: route.handler,
      timeoutSeconds: FUNCTION_SETTINGS.apiTimeoutSeconds,
      memoryMb: FUNCTION_SETTINGS.apiMemoryMb,
      description: `${route.method} ${route.path}`,
      environment,
    });
    data.table.grant(fn, ...PIPELINE_TABLE_ACTIONS, ...(route.tableActions ?? []).map((a) => `dynamodb:${a}`));
    DataStore.denyApiKeyWrites(fn.role, data.table);
    // Authentication derives key secrets: the API functions alone may ask KMS for them.
    data.keySecrets.grant(fn, 'kms:GenerateMac');
    fn.addEnvironment('KEY_SECRETS_KMS_KEY_ID', data.keySecrets.keyArn);
    if (route.queueActions?.includes('send')) data.webhookQueue.grantSendMessages(fn);
    const integration = new apigw.LambdaIntegration(fn, { timeout: Duration.seconds(FUNCTION_SETTINGS.apiTimeoutSeconds) });
    this.api.root.resourceForPath(BASE_PATH + route.path).addMethod(route.method, integration, { operationName: route.operationId });
    return fn;
  }

  /**
   * Unauthenticated traffic must not cost a function call or a table read, nor let one source
   * use up the stage throttle every partner shares. Signed requests are counted per key id and
   * source address, above any rate a key is granted; requests without well-formed
   * authentication headers per source address, low. A block is answered by API Gateway's
   * WAF_FILTERED response (a WAF custom response would take precedence and cannot carry the
   * request id): 429 problem+json with Retry-After and X-Request-Id. Sampled requests stay
   * off: they would keep signatures and bodies.
   */
  private firewall(scope: Construct): void {
    const visibility = (metricName: string) => ({ cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: false });
    // singleHeader is free-form JSON in CloudFormation's schema: its member is written as CloudFormation spells it.
    const header = (name: string) => ({ singleHeader: { Name: name } });
    const none = [{ priority: 0, type: 'NONE' }];
    const wellFormed = {
      andStatement: {
        statements: Object.entries(EDGE_WELL_FORMED_HEADERS).map(([name, form]) => ({
          regexMatchStatement: { fieldToMatch: header(name), regexString: form.source, textTransformations: none },
        })),
      },
    };
    const acl = new wafv2.CfnWebACL(scope, 'ApiFirewall', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('commerce-api-firewall'),
      rules: [
        {
          name: 'rate-per-key-and-address',
          priority: 0,
          statement: {
            rateBasedStatement: {
              limit: WAF_RATE_LIMITS_PER_5_MINUTES.perKeyAndAddress,
              aggregateKeyType: 'CUSTOM_KEYS',
              customKeys: [{ header: { name: 'x-svc-key-id', textTransformations: none } }, { ip: {} }],
            },
          },
          action: { block: {} },
          visibilityConfig: visibility('commerce-api-rate-per-key'),
        },
        {
          name: 'rate-unsigned-per-address',
          priority: 1,
          statement: {
            rateBasedStatement: {
              limit: WAF_RATE_LIMITS_PER_5_MINUTES.unsignedPerAddress,
              aggregateKeyType: 'IP',
              scopeDownStatement: { notStatement: { statement: wellFormed } },
            },
          },
          action: { block: {} },
          visibilityConfig: visibility('commerce-api-rate-unsigned'),
        },
        {
          name: 'rate-per-address',
          priority: 2,
          statement: { rateBasedStatement: { limit: WAF_RATE_LIMITS_PER_5_MINUTES.perAddress, aggregateKeyType: 'IP' } },
          action: { block: {} },
          visibilityConfig: visibility('commerce-api-rate-per-address'),
        },
      ],
    });
    new wafv2.CfnWebACLAssociation(scope, 'ApiFirewallAssociation', { resourceArn: this.api.deploymentStage.stageArn, webAclArn: acl.attrArn });
  }

  /**
   * REST APIs answer a known path with an unknown method as "missing authentication token";
   * a mock ANY method answers 405 method_not_allowed with Allow instead.
   */
  private methodNotAllowed(): void {
    const methodsByPath = new Map<string, string[]>();
    for (const route of this.routes) methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
    for (const [path, allowed] of methodsByPath) {
      const problem = renderProblem(new MethodNotAllowedError(allowed), '$context.path', '$context.requestId');
      const integration = new apigw.MockIntegration({
        passthroughBehavior: apigw.PassthroughBehavior.WHEN_NO_TEMPLATES,
        requestTemplates: { 'application/json': '{"statusCode": 405}' },
        integrationResponses: [
          {
            statusCode: '405',
            responseParameters: {
              'method.response.header.Allow': `'${allowed.join(', ')}'`,
              'method.response.header.Content-Type': "'application/problem+json'",
              // Every answer carries its request id, the gateway's own 405 included.
              'method.response.header.X-Request-Id': 'context.requestId',
            },
            responseTemplates: { 'application/json': JSON.stringify(problem.body) },
          },
        ],
      });
      this.api.root.resourceForPath(BASE_PATH + path).addMethod('ANY', integration, {
        operationName: `methodNotAllowed${path.replace(/\W/g, '_')}`,
        methodResponses: [
          {
            statusCode: '405',
            responseParameters: {
              'method.response.header.Allow': true,
              'method.response.header.Content-Type': true,
              'method.response.header.X-Request-Id': true,
            },
          },
        ],
      });
    }
  }
}
