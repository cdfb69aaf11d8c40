/**
 * What `cdk deploy` would deploy, read from the synthesized template itself: each function's
 * IAM policy, timeout, memory, reserved concurrency and environment, each event source
 * mapping's settings, each queue's attributes. The local runtime runs every function under
 * these and nothing else, so a missing grant or a changed setting shows on a laptop first.
 *
 * The stack is synthesized in this process with bundling skipped (the template is otherwise
 * the one `npx cdk synth` prints) and kept in `node_modules/.cache` under a hash of every
 * source the app reads, so a start after no change costs a file read, not a synthesis.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROUTES } from '#functions/routes.ts';
import { LIVE_CALL_FUNCTIONS, WORKERS } from '#functions/workers.ts';
import { routeFunctionId, workerFunctionId } from '#infra/parts/commerce-function.ts';
import { DATA_STORE_IDS } from '#infra/parts/data-store.ts';
import { LIVE_CALL_IDS } from '#infra/parts/live-calls.ts';
import { parseCallerIds } from '#shared/config/runtime.ts';
import type { DeploymentCalls } from '#shared/tenants/config-writer.ts';
import { writeFileAtomic } from './durable-file.ts';
import type { PolicyStatement } from './iam.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

type TemplateValue = string | number | boolean | null | TemplateValue[] | { [key: string]: TemplateValue };
interface TemplateResource {
  Type: string;
  Properties?: Record<string, TemplateValue>;
  Metadata?: Record<string, TemplateValue>;
}
export interface Template {
  Resources: Record<string, TemplateResource>;
}

/** Every file whose content can change the template. */
function templateSources(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push(path);
    }
  };
  for (const dir of ['infra', 'functions', 'shared']) walk(join(repoRoot, dir));
  return [...files, join(repoRoot, 'cdk.json'), join(repoRoot, 'package-lock.json')].sort();
}

/** The synthesized template of the stack with `cdk.json`'s context, from the cache when its sources are unchanged. */
export async function synthesizedTemplate(extraContext: Record<string, string> = {}): Promise<Template> {
  const hash = createHash('sha256').update(JSON.stringify(extraContext));
  for (const file of templateSources()) hash.update(relative(repoRoot, file)).update('\0').update(readFileSync(file)).update('\0');
  const cacheDir = join(repoRoot, 'node_modules', '.cache', 'commerce-interface');
  const cacheFile = join(cacheDir, `template-${hash.digest('hex').slice(0, 24)}.json`);
  if (existsSync(cacheFile)) {
    try {
      return JSON.parse(readFileSync(cacheFile, 'utf8')) as Template;
    } catch {
      // A damaged cache entry is synthesized again.
    }
  }
  const [{ App }, { addCommerceStack }] = await Promise.all([import('aws-cdk-lib'), import('#infra/commerce-app.ts')]);
  const { context } = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
  const app = new App({ context: { ...context, ...extraContext, 'aws:cdk:bundling-stacks': [], 'aws:cdk:enable-path-metadata': true } });
  const stack = addCommerceStack(app);
  const template = app.synth().getStackByName(stack.stackName).template as Template;
  mkdirSync(cacheDir, { recursive: true });
  writeFileAtomic(cacheFile, JSON.stringify(template));
  return template;
}

/** The local stand-ins of the template's resources, by their construct id in the stack. */
export interface LocalResources {
  /** Construct id → { Ref, and each GetAtt attribute } as the local emulators name them. */
  byConstructId: Record<string, Record<string, string>>;
}

export interface EventSourceSettings {
  functionName: string;
  /** `table-stream` or the queue's construct id. */
  source: string;
  batchSize: number;
  maxBatchingWindowSeconds: number;
  /** Stream sources: retries of a failing batch before it is skipped (-1: until the record expires). */
  retryAttempts?: number;
  bisectBatchOnError?: boolean;
  /** Stream sources: records older than this are skipped (-1: never, until the stream's 24 h retention). */
  maxRecordAgeSeconds?: number;
  reportBatchItemFailures: boolean;
  onFailureDestination?: string;
  /** Lambda event filter patterns (JSON); a record is handed over when any matches. */
  filterPatterns: string[];
  /** SQS sources: the most concurrent invocations the mapping starts. */
  maxConcurrency?: number;
  /** Stream sources: batches of one shard in hand at once (1 when the template leaves it out). */
  parallelizationFactor?: number;
}

export interface DeployedFunction {
  name: string;
  logicalId: string;
  timeoutSeconds: number;
  memoryMb: number;
  reservedConcurrency?: number;
  /** Environment values with the template's references resolved to the local resources. */
  environment: Record<string, string>;
  /** The statements of every inline policy on the function's role, resources resolved locally. */
  statements: PolicyStatement[];
}

export interface QueueSettings {
  constructId: string;
  visibilityTimeoutSeconds: number;
  retentionSeconds: number;
  maxMessageSizeBytes: number;
  redrive?: { deadLetterConstructId: string; maxReceiveCount: number };
}

export interface Deployment {
  functions: Map<string, DeployedFunction>;
  eventSources: EventSourceSettings[];
  queues: Map<string, QueueSettings>;
  /** API Gateway's integration timeout per route (operation id). */
  integrationTimeoutSeconds: Map<string, number>;
  /** The deployed contact flow's JSON, references resolved (a deployment with live calls). */
  contactFlow?: unknown;
}

const constructIdOf = (resource: TemplateResource): string | undefined => {
  const path = resource.Metadata?.['aws:cdk:path'];
  // `Stack/Id/Resource` (or `Stack/Id` for L1 constructs).
  return typeof path === 'string' ? path.split('/')[1] : undefined;
};

const resourcesOfType = (template: Template, type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);

/** The queue settings of the template, by construct id (no local resource needed: the runtime creates the queues from them). */
export function queueSettings(template: Template): Map<string, QueueSettings> {
  const idOf = new Map(Object.entries(template.Resources).map(([logicalId, r]) => [logicalId, constructIdOf(r)]));
  const queues = new Map<string, QueueSettings>();
  for (const [, queue] of resourcesOfType(template, 'AWS::SQS::Queue')) {
    const p = queue.Properties ?? {};
    const redrive = p.RedrivePolicy as { deadLetterTargetArn: { 'Fn::GetAtt': [string, string] }; maxReceiveCount: number } | undefined;
    const constructId = constructIdOf(queue)!;
    queues.set(constructId, {
      constructId,
      // SQS's defaults where the template leaves them out.
      visibilityTimeoutSeconds: Number(p.VisibilityTimeout ?? 30),
      retentionSeconds: Number(p.MessageRetentionPeriod ?? 345_600),
      maxMessageSizeBytes: Number(p.MaximumMessageSize ?? 262_144),
      ...(redrive
        ? { redrive: { deadLetterConstructId: idOf.get(redrive.deadLetterTargetArn['Fn::GetAtt'][0])!, maxReceiveCount: redrive.maxReceiveCount } }
        : {}),
    });
  }
  return queues;
}

interface Resolver {
  /** Construct id of a logical id. */
  idOf: ReadonlyMap<string, string | undefined>;
  /** `Ref`, `Fn::GetAtt` and `Fn::Join` resolved to the local resources. */
  resolve: (value: TemplateValue) => string;
}

function resolverFor(template: Template, local: LocalResources): Resolver {
  const idOf = new Map(Object.entries(template.Resources).map(([logicalId, r]) => [logicalId, constructIdOf(r)]));
  const pseudo: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': 'us-east-1',
    'AWS::AccountId': '000000000000',
    'AWS::URLSuffix': 'amazonaws.com',
  };
  const attribute = (logicalId: string, name: string): string => {
    const value = local.byConstructId[idOf.get(logicalId) ?? '']?.[name];
    if (value === undefined) throw new Error(`The template refers to ${logicalId}.${name}, which the local runtime does not stand in for`);
    return value;
  };
  const resolve = (value: TemplateValue): string => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      if ('Ref' in value) return pseudo[value.Ref as string] ?? attribute(value.Ref as string, 'Ref');
      if ('Fn::GetAtt' in value) {
        const [id, name] = value['Fn::GetAtt'] as [string, string];
        return attribute(id, name);
      }
      if ('Fn::Join' in value) {
        const [separator, parts] = value['Fn::Join'] as [string, TemplateValue[]];
        return parts.map(resolve).join(separator);
      }
      if ('Fn::Select' in value) {
        const [index, list] = value['Fn::Select'] as [number, { 'Fn::Split'?: [string, TemplateValue] }];
        if (!list['Fn::Split']) throw new Error(`The local runtime selects only from Fn::Split: ${JSON.stringify(value)}`);
        const [separator, source] = list['Fn::Split'];
        const part = resolve(source).split(separator)[Number(index)];
        if (part === undefined) throw new Error(`Fn::Select ${index} of ${JSON.stringify(value)} is out of range`);
        return part;
      }
    }
    throw new Error(`The local runtime cannot resolve ${JSON.stringify(value)} from the template`);
  };
  return { idOf, resolve };
}

/** The statements of every inline policy, by the logical id of the role they are attached to. */
function statementsByRole(template: Template, { resolve }: Resolver): Map<string, PolicyStatement[]> {
  const byRole = new Map<string, PolicyStatement[]>();
  for (const [, policy] of resourcesOfType(template, 'AWS::IAM::Policy')) {
    const document = policy.Properties!.PolicyDocument as { Statement: Record<string, TemplateValue>[] };
    const statements = document.Statement.map(
      (s): PolicyStatement => ({ ...(s as unknown as PolicyStatement), Resource: Array.isArray(s.Resource) ? s.Resource.map(resolve) : resolve(s.Resource!) }),
    );
    for (const role of policy.Properties!.Roles as { Ref: string }[]) byRole.set(role.Ref, [...(byRole.get(role.Ref) ?? []), ...statements]);
  }
  return byRole;
}

function readFunctions(template: Template, resolver: Resolver, functionNames: ReadonlyMap<string, string>): Map<string, DeployedFunction> {
  const policies = statementsByRole(template, resolver);
  const functions = new Map<string, DeployedFunction>();
  for (const [logicalId, fn] of resourcesOfType(template, 'AWS::Lambda::Function')) {
    const name = functionNames.get(constructIdOf(fn) ?? '');
    if (!name) continue;
    const p = fn.Properties!;
    const roleId = (p.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const variables = ((p.Environment as { Variables?: Record<string, TemplateValue> } | undefined)?.Variables ?? {}) as Record<string, TemplateValue>;
    functions.set(name, {
      name,
      logicalId,
      // Lambda's defaults where the template leaves them out.
      timeoutSeconds: Number(p.Timeout ?? 3),
      memoryMb: Number(p.MemorySize ?? 128),
      ...(p.ReservedConcurrentExecutions !== undefined ? { reservedConcurrency: Number(p.ReservedConcurrentExecutions) } : {}),
      environment: Object.fromEntries(Object.entries(variables).map(([key, value]) => [key, resolver.resolve(value)])),
      statements: policies.get(roleId) ?? [],
    });
  }
  const missing = [...functionNames.values()].filter((name) => !functions.has(name) && !OPTIONAL_FUNCTIONS.has(name));
  if (missing.length) throw new Error(`The template deploys no function for ${missing.join(', ')}`);
  return functions;
}

function readEventSources(template: Template, resolver: Resolver, functions: Map<string, DeployedFunction>): EventSourceSettings[] {
  const nameByLogicalId = new Map([...functions.values()].map((fn) => [fn.logicalId, fn.name]));
  const eventSources: EventSourceSettings[] = [];
  for (const [, mapping] of resourcesOfType(template, 'AWS::Lambda::EventSourceMapping')) {
    const p = mapping.Properties!;
    const functionName = nameByLogicalId.get((p.FunctionName as { Ref: string }).Ref);
    if (!functionName) continue;
    const [sourceId, sourceAttribute] = (p.EventSourceArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
    const onFailure = (p.DestinationConfig as { OnFailure?: { Destination: TemplateValue } } | undefined)?.OnFailure;
    const maxConcurrency = (p.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency;
    const stream = sourceAttribute === 'StreamArn';
    eventSources.push({
      functionName,
      source: stream ? 'table-stream' : resolver.idOf.get(sourceId)!,
      // Lambda's defaults where the template leaves them out.
      batchSize: Number(p.BatchSize ?? (stream ? 100 : 10)),
      maxBatchingWindowSeconds: Number(p.MaximumBatchingWindowInSeconds ?? 0),
      ...(stream
        ? {
            retryAttempts: Number(p.MaximumRetryAttempts ?? -1),
            bisectBatchOnError: Boolean(p.BisectBatchOnFunctionError ?? false),
            maxRecordAgeSeconds: Number(p.MaximumRecordAgeInSeconds ?? -1),
            parallelizationFactor: Number(p.ParallelizationFactor ?? 1),
          }
        : {}),
      reportBatchItemFailures: ((p.FunctionResponseTypes as string[] | undefined) ?? []).includes('ReportBatchItemFailures'),
      ...(onFailure ? { onFailureDestination: resolver.resolve(onFailure.Destination) } : {}),
      filterPatterns: ((p.FilterCriteria as { Filters?: { Pattern: string }[] } | undefined)?.Filters ?? []).map((f) => f.Pattern),
      ...(maxConcurrency ? { maxConcurrency } : {}),
    });
  }
  return eventSources;
}

/** API Gateway's integration timeout per route (operation id); REST's default, and maximum without a quota increase, is 29 s. */
function readIntegrationTimeouts(template: Template): Map<string, number> {
  const timeouts = new Map<string, number>();
  for (const [, method] of resourcesOfType(template, 'AWS::ApiGateway::Method')) {
    const integration = method.Properties!.Integration as { Type?: string; TimeoutInMillis?: number } | undefined;
    if (integration?.Type === 'AWS_PROXY') timeouts.set(String(method.Properties!.OperationName), (integration.TimeoutInMillis ?? 29_000) / 1000);
  }
  return timeouts;
}

/**
 * Reads the deployment from the template, resolving its references to the local resources.
 * `functionNames` maps each function's construct id to the name the local runtime calls it by
 * (an operation id or a worker name).
 */
export function readDeployment(template: Template, local: LocalResources, functionNames: ReadonlyMap<string, string>): Deployment {
  const resolver = resolverFor(template, local);
  const functions = readFunctions(template, resolver, functionNames);
  return {
    functions,
    eventSources: readEventSources(template, resolver, functions),
    queues: queueSettings(template),
    integrationTimeoutSeconds: readIntegrationTimeouts(template),
    ...readContactFlow(template, resolver),
  };
}

function readContactFlow(template: Template, { resolve }: Resolver): { contactFlow?: unknown } {
  const [flow] = resourcesOfType(template, 'AWS::Connect::ContactFlow');
  return flow ? { contactFlow: JSON.parse(resolve(flow[1].Properties!.Content!)) } : {};
}

/** The ARN a local function answers to, where something in the template invokes it by ARN (the contact flow). */
export const localFunctionArn = (name: string) => `arn:aws:lambda:us-east-1:000000000000:function:${name}`;

/** The name the local runtime calls each function of the template by: a route's operation id, a worker's name. */
export const FUNCTION_NAMES: ReadonlyMap<string, string> = new Map([
  ...ROUTES.map((route) => [routeFunctionId(route.operationId), route.operationId] as const),
  ...[...Object.values(WORKERS), ...Object.values(LIVE_CALL_FUNCTIONS)].map((fn) => [workerFunctionId(fn.name), fn.name] as const),
]);
/** Functions only some deployments have: live calls' with `callPlatform=connect`. */
const OPTIONAL_FUNCTIONS: ReadonlySet<string> = new Set(Object.values(LIVE_CALL_FUNCTIONS).map((fn) => fn.name));

/** The Connect instance a local runtime with live calls is synthesized with (the stand-in answers for it). */
export const LOCAL_CONNECT_INSTANCE_ARN = 'arn:aws:connect:us-east-1:000000000000:instance/local-instance';
/** The claimed number per market the local instance has (the stand-in's allowlist is their countries). */
export const LOCAL_CONNECT_CALLER_IDS = { DE: '+4930555000100', AT: '+431555000100', US: '+12025550100', GB: '+442055500100' };

/**
 * The stack context of a local runtime with live calls: the local instance, a claimed number per
 * market the sandbox uses, and Connect's default quotas; `CONNECT_INSTANCE_ARN`,
 * `CONNECT_CALLER_IDS`, `CONNECT_CONCURRENT_CALLS`, `CONNECT_DIALS_PER_SECOND` and
 * `CONNECT_CAMPAIGN_TRAFFIC` in the environment replace them (a stand-in written by anyone sees what it was given).
 */
export function localConnectContext(env: Readonly<Record<string, string | undefined>> = {}): Record<string, string> {
  return {
    callPlatform: 'connect',
    connectInstanceArn: env.CONNECT_INSTANCE_ARN ?? LOCAL_CONNECT_INSTANCE_ARN,
    connectCallerIds: env.CONNECT_CALLER_IDS ?? JSON.stringify(LOCAL_CONNECT_CALLER_IDS),
    ...(env.CONNECT_CONCURRENT_CALLS ? { connectConcurrentCalls: env.CONNECT_CONCURRENT_CALLS } : {}),
    ...(env.CONNECT_DIALS_PER_SECOND ? { connectDialsPerSecond: env.CONNECT_DIALS_PER_SECOND } : {}),
    ...(env.CONNECT_CAMPAIGN_TRAFFIC ? { connectCampaignTraffic: env.CONNECT_CAMPAIGN_TRAFFIC } : {}),
  };
}
export const LOCAL_CONNECT_CONTEXT = localConnectContext();

/** What a local runtime with environment `env` offers tenants: its call platform and the countries of its caller ids. */
export function localDeploymentCalls(env: Readonly<Record<string, string | undefined>> = process.env): DeploymentCalls {
  const callPlatform = env.CALL_PLATFORM ?? 'sandbox';
  if (callPlatform === 'sandbox') return { callPlatform };
  return { callPlatform, callerIdCountries: Object.keys(parseCallerIds(localConnectContext(env).connectCallerIds) ?? {}) };
}

/** The local stand-in of the API key secrets' KMS key (the root key file answers its GenerateMac calls). */
export const LOCAL_KEY_ARN = 'arn:aws:kms:us-east-1:000000000000:key/local-key-root';

/** Where the local emulators keep the template's stateful resources. */
export interface LocalStandIns {
  tableArn: string;
  streamArn: string;
  /** Each queue's URL (`Ref`) and ARN by its construct id. */
  queues: Record<string, { Ref: string; Arn: string }>;
  /** The Connect instance the template was synthesized with, where it calls through Connect. */
  connectInstanceArn?: string | undefined;
}

/** The deployment with every reference resolved to the local stand-ins. */
export function localDeployment(template: Template, standIns: LocalStandIns): Deployment {
  const tableName = standIns.tableArn.split('/').at(-1)!;
  return readDeployment(
    template,
    {
      byConstructId: {
        ...standIns.queues,
        [DATA_STORE_IDS.table]: { Ref: tableName, Arn: standIns.tableArn, StreamArn: standIns.streamArn },
        [DATA_STORE_IDS.keySecrets]: { Ref: LOCAL_KEY_ARN.split('/')[1]!, Arn: LOCAL_KEY_ARN },
        [LIVE_CALL_IDS.flow]: { ContactFlowArn: `${standIns.connectInstanceArn ?? LOCAL_CONNECT_INSTANCE_ARN}/contact-flow/local-order-call` },
        [workerFunctionId(LIVE_CALL_FUNCTIONS.dialog.name)]: { Arn: localFunctionArn(LIVE_CALL_FUNCTIONS.dialog.name) },
      },
    },
    FUNCTION_NAMES,
  );
}
