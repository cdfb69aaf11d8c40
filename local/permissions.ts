/**
 * Holds every AWS call a function makes to that function's IAM policy as the synthesized
 * template states it. Each SDK call is turned into the IAM requests AWS authorizes it as
 * (a transaction as one per item, a batch as one per table, a query on an index as the index
 * ARN) with the condition keys the template uses (`dynamodb:LeadingKeys`), and refused with
 * AWS's `AccessDeniedException` unless the policy allows every one of them.
 *
 * Calls outside any function's invocation are the operator's (start-up, the admin CLI, a
 * test's setup) and are not checked. Resource policies (the queues' TLS-only deny, the key
 * policy) are not evaluated: the SDK always uses TLS on AWS, and the key policy delegates to IAM.
 */
import { TABLE_DEFINITION } from '#shared/storage/definition.ts';
import type { Deployment, LocalStandIns } from './deployment.ts';
import { type AccessRequest, evaluate, type PolicyStatement } from './iam.ts';
import { currentInvocation } from './invocation.ts';

type AttributeMap = Record<string, { S?: string }>;
type Input = Record<string, unknown>;

/** How the local stand-ins name their resources, so a request names the ARN the policy does. */
export interface ResourceNames {
  tableArn: (tableName: string) => string;
  streamArn: string;
  queueArn: (queueUrl: string) => string;
  /** The ARN of the Connect instance an id names. */
  connectInstanceArn: (instanceId: string) => string;
}

const leadingKey = (item: AttributeMap | undefined): string[] => {
  const value = item?.[TABLE_DEFINITION.partitionKey]?.S;
  return value === undefined ? [] : [value];
};

const TRANSACT_ACTIONS = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' } as const;

/** The IAM requests one DynamoDB call is authorized as. */
export function dynamodbRequests(operation: string, input: Input, names: ResourceNames): AccessRequest[] {
  const action = (name: string) => `dynamodb:${name}`;
  switch (operation) {
    case 'GetItem':
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem': {
      const item = (input.Key ?? input.Item) as AttributeMap;
      return [{ action: action(operation), resource: names.tableArn(input.TableName as string), context: { 'dynamodb:LeadingKeys': leadingKey(item) } }];
    }
    case 'Query':
    case 'Scan': {
      const table = names.tableArn(input.TableName as string);
      return [{ action: action(operation), resource: input.IndexName ? `${table}/index/${input.IndexName as string}` : table }];
    }
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.entries(input.RequestItems as Record<string, unknown>).map(([tableName, entries]) => {
        const items =
          operation === 'BatchGetItem'
            ? (entries as { Keys: AttributeMap[] }).Keys
            : (entries as { PutRequest?: { Item: AttributeMap }; DeleteRequest?: { Key: AttributeMap } }[]).map(
                (e) => e.PutRequest?.Item ?? e.DeleteRequest?.Key,
              );
        return { action: action(operation), resource: names.tableArn(tableName), context: { 'dynamodb:LeadingKeys': items.flatMap(leadingKey) } };
      });
    // A transaction is authorized item by item as the underlying operation (DynamoDB developer guide, "Using IAM with DynamoDB transactions").
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return (input.TransactItems as Record<string, { TableName: string; Key?: AttributeMap; Item?: AttributeMap }>[]).map((entry) => {
        const [kind, part] = Object.entries(entry)[0]!;
        const operationName = kind === 'Get' ? 'GetItem' : TRANSACT_ACTIONS[kind as keyof typeof TRANSACT_ACTIONS];
        return {
          action: action(operationName),
          resource: names.tableArn(part.TableName),
          context: { 'dynamodb:LeadingKeys': leadingKey(part.Key ?? part.Item) },
        };
      });
    case 'ListStreams':
    case 'ListTables':
      return [{ action: action(operation), resource: '*' }];
    case 'DescribeStream':
    case 'GetShardIterator':
    case 'GetRecords':
      return [{ action: action(operation), resource: names.streamArn }];
    default:
      return [{ action: action(operation), resource: names.tableArn(input.TableName as string) }];
  }
}

/** SQS batch calls are authorized as their single-message action. */
const SQS_BATCH_ACTIONS: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

export function sqsRequests(operation: string, input: Input, names: ResourceNames): AccessRequest[] {
  const resource = input.QueueUrl ? names.queueArn(input.QueueUrl as string) : '*';
  return [{ action: `sqs:${SQS_BATCH_ACTIONS[operation] ?? operation}`, resource }];
}

export const kmsRequests = (operation: string, input: Input): AccessRequest[] => [{ action: `kms:${operation}`, resource: input.KeyId as string }];

/** Connect's contact calls are authorized on the contact's ARN in its instance (a dial: any contact of the instance). */
export function connectRequests(operation: string, input: Input, names: ResourceNames): AccessRequest[] {
  const contact = (input.ContactId ?? input.InitialContactId) as string | undefined;
  return [{ action: `connect:${operation}`, resource: `${names.connectInstanceArn(input.InstanceId as string)}/contact/${contact ?? '*'}` }];
}

/** AWS's answer to a call the caller's policy does not allow. */
export class AccessDeniedException extends Error {
  override readonly name = 'AccessDeniedException';
  readonly $fault = 'client';
  readonly $metadata = { httpStatusCode: 400 };
  readonly $retryable = undefined;
  constructor(functionName: string, request: AccessRequest, decision: string) {
    super(
      `User: arn:aws:sts::000000000000:assumed-role/${functionName}-role/${functionName} is not authorized to perform: ${request.action} on resource: ${request.resource} because ${decision === 'explicitly denied' ? 'an explicit deny in an identity-based policy applies' : 'no identity-based policy allows the action'}`,
    );
  }
}

/** What Lambda does to work it has stopped: nothing of it reaches AWS any more. */
export class InvocationEndedError extends Error {
  override readonly name = 'InvocationEndedError';
  constructor(functionName: string) {
    super(`${functionName}: the invocation ran past its timeout and was stopped; this call never left the function`);
  }
}

export interface PermissionCheck {
  /** The statements each function runs under, by its local name. */
  policies: ReadonlyMap<string, readonly PolicyStatement[]>;
  names: ResourceNames;
  /** Every call refused, as `function action resource` (a suite reports the count). */
  refused: string[];
  /** Every `function action` allowed so far (what a suite shows each function really needs). */
  used: Set<string>;
  /** In a function's thread: each refusal and each newly used action told to the runtime. */
  report?: { refused(entry: string): void; used(entry: string): void } | undefined;
}

/** A permission check as plain data, for a function's thread to build its own from (permissionCheckFrom). */
export interface PermissionData {
  policies: [string, PolicyStatement[]][];
  tableArnPrefix: string;
  streamArn: string;
  queueArns: [string, string][];
  connectInstanceArn: string | undefined;
}

/** Refuses a request the current invocation's policy does not allow; nothing outside an invocation is checked. */
export function authorize(check: PermissionCheck, requests: AccessRequest[]): void {
  const invocation = currentInvocation();
  if (!invocation) return;
  if (invocation.timedOut) throw new InvocationEndedError(invocation.functionName);
  const statements = check.policies.get(invocation.functionName);
  if (!statements) throw new Error(`No deployed policy for function ${invocation.functionName}`);
  for (const request of requests) {
    const decision = evaluate(statements, request);
    if (decision === 'allowed') {
      const used = `${invocation.functionName} ${request.action}`;
      if (!check.used.has(used)) check.report?.used(used);
      check.used.add(used);
      continue;
    }
    const refused = `${invocation.functionName} ${request.action} ${request.resource}`;
    check.refused.push(refused);
    check.report?.refused(refused);
    throw new AccessDeniedException(invocation.functionName, request, decision);
  }
}

type Service = 'dynamodb' | 'sqs' | 'kms' | 'connect';
const REQUESTS: Record<Service, (operation: string, input: Input, names: ResourceNames) => AccessRequest[]> = {
  dynamodb: dynamodbRequests,
  sqs: sqsRequests,
  kms: kmsRequests,
  connect: connectRequests,
};

/** Any SDK v3 client (DynamoDB, DynamoDB Streams, SQS, KMS): only its middleware stack is used. */
type StackClient = { middlewareStack: unknown };

/**
 * Adds the check to an SDK client. It runs at the build step, once per call and before the
 * retry loop (AWS refuses every attempt alike), on the marshalled input the service receives.
 */
export function enforcePermissions(service: Service, client: StackClient, check: PermissionCheck): void {
  (client.middlewareStack as { add: (middleware: unknown, options: Record<string, unknown>) => void }).add(
    (next: (args: { input: Input }) => Promise<unknown>, context: { commandName?: string }) => async (args: { input: Input }) => {
      const operation = (context.commandName ?? '').replace(/Command$/, '');
      if (currentInvocation()) authorize(check, REQUESTS[service](operation, args.input, check.names));
      return next(args);
    },
    { step: 'build', name: 'localPermissions', override: true },
  );
}

/** What a check needs, as plain data: every function's policy (optionally edited, as a test does) and the local stand-ins' names. */
export function permissionData(
  deployment: Deployment,
  standIns: LocalStandIns,
  editPolicy?: (functionName: string, statements: PolicyStatement[]) => PolicyStatement[],
): PermissionData {
  return {
    policies: [...deployment.functions.values()].map((fn) => [fn.name, editPolicy ? editPolicy(fn.name, structuredClone(fn.statements)) : fn.statements]),
    tableArnPrefix: standIns.tableArn.slice(0, standIns.tableArn.lastIndexOf('/') + 1),
    streamArn: standIns.streamArn,
    queueArns: Object.values(standIns.queues).map((q) => [q.Ref, q.Arn]),
    connectInstanceArn: standIns.connectInstanceArn,
  };
}

/** The check of the functions' deployed policies against the local stand-ins' names. */
export function permissionCheckFrom(data: PermissionData, report?: PermissionCheck['report']): PermissionCheck {
  const queueArns = new Map(data.queueArns);
  return {
    policies: new Map(data.policies),
    names: {
      tableArn: (name) => `${data.tableArnPrefix}${name}`,
      streamArn: data.streamArn,
      queueArn: (url) => queueArns.get(url) ?? `arn:aws:sqs:us-east-1:000000000000:${url.split('/').at(-1)}`,
      connectInstanceArn: (id) =>
        data.connectInstanceArn?.endsWith(`/${id}`) ? data.connectInstanceArn : `arn:aws:connect:us-east-1:000000000000:instance/${id}`,
    },
    refused: [],
    used: new Set(),
    report,
  };
}

/** The check of every function's deployed policy (optionally edited, as a test does), against the local stand-ins' names. */
export const permissionCheck = (
  deployment: Deployment,
  standIns: LocalStandIns,
  editPolicy?: (functionName: string, statements: PolicyStatement[]) => PolicyStatement[],
): PermissionCheck => permissionCheckFrom(permissionData(deployment, standIns, editPolicy));
