/**
 * The local runtime's fault switch: a share of the functions' AWS calls fail the way AWS
 * really fails them, so what gets tested is the product's own retry and idempotency paths.
 *
 *   LOCAL_FAULTS=dynamodb:0.05,sqs:0.05,stream-processor:0.1
 *
 * `dynamodb`, `sqs`: the share of SDK attempts that fail. Half fail before the service acts
 * (throttling or a 5xx: nothing happened, the SDK retries), half after it acted (the
 * connection drops: the write happened and the caller cannot know, the SDK retries it).
 * `dynamodb-lost`: the share of DynamoDB writes whose first attempt's answer is lost after
 * DynamoDB acted (the SDK's retry then meets the write's own result). At 1 every write is hit,
 * deterministically. Reads are spared: losing every answer would drain the SDK's retry quota
 * (each such retry costs 10 of its 500 tokens, a success gives back 1) and then fail calls for good.
 * A worker's name (`stream-processor`, `webhook-sender`, ...): the share of its invocations
 * that fail before the handler runs, as a crashed or timed-out Lambda would.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { decorateClients } from '#shared/storage/clients.ts';
import { WRITE_COMMANDS } from './metering/capacity-meter.ts';

export type FaultSpec = ReadonlyMap<string, number>;

/** Parses `name:share,...`; an unknown shape is an error the runtime refuses to start with. */
export function parseFaults(text: string | undefined): FaultSpec {
  const spec = new Map<string, number>();
  for (const part of (text ?? '').split(',').filter((p) => p.trim())) {
    const [name, share] = part.split(':').map((s) => s.trim());
    const value = Number(share);
    if (!name || !/^[a-z-]+$/.test(name) || !(value >= 0 && value <= 1)) throw new Error(`LOCAL_FAULTS: "${part}" is not name:share with a share from 0 to 1`);
    spec.set(name, value);
  }
  return spec;
}

/** Faults injected so far, by kind: in the runtime, its own and every function's. */
export const injectedFaults: Record<string, number> = {};
let sink: ((kind: string) => void) | undefined;
/** In a function's thread: every fault injected there is told to the runtime, which counts it. */
export const setFaultSink = (report: (kind: string) => void): void => {
  sink = report;
};
export const count = (kind: string) => {
  if (sink) return sink(kind);
  injectedFaults[kind] = (injectedFaults[kind] ?? 0) + 1;
};

type ServiceError = Error & { $metadata: { httpStatusCode?: number }; $fault: 'client' | 'server'; code?: string };

const serviceError = (name: string, status: number): ServiceError =>
  Object.assign(new Error(`${name} (injected by LOCAL_FAULTS)`), {
    name,
    $metadata: { httpStatusCode: status },
    $fault: status >= 500 ? ('server' as const) : ('client' as const),
  });

/** What the Node HTTP handler raises when the connection drops before the answer arrives. */
export const droppedConnection = (): ServiceError =>
  Object.assign(new Error('socket hang up (injected by LOCAL_FAULTS)'), { name: 'Error', code: 'ECONNRESET', $metadata: {}, $fault: 'client' as const });

const BEFORE: Record<'dynamodb' | 'sqs', [string, number][]> = {
  dynamodb: [
    ['ProvisionedThroughputExceededException', 400],
    ['ThrottlingException', 400],
    ['RequestLimitExceeded', 400],
    ['InternalServerError', 500],
  ],
  sqs: [
    ['ServiceUnavailable', 503],
    ['ThrottlingException', 400],
  ],
};

/**
 * Adds the fault middleware to a client, inside the SDK's retry loop (the deserialize step runs
 * once per attempt), so the SDK retries an injected fault as it would a real one.
 */
export function injectClientFaults(service: 'dynamodb' | 'sqs', client: DynamoDBClient | SQSClient, share: number, random = Math.random): void {
  if (share <= 0) return;
  (client as DynamoDBClient).middlewareStack.add(
    (next) => async (args) => {
      if (random() >= share) return next(args);
      if (random() < 0.5) {
        count(`${service}:connection dropped after the call`);
        await next(args);
        throw droppedConnection();
      }
      const [name, status] = BEFORE[service][Math.floor(random() * BEFORE[service].length)]!;
      count(`${service}:${name}`);
      throw serviceError(name, status);
    },
    { step: 'deserialize', name: 'localFaults', override: true },
  );
}

/** Loses the answer of the first attempt of a share of the client's writes, after DynamoDB acted. */
export function injectLostAnswers(client: DynamoDBClient, share: number, random = Math.random): void {
  if (share <= 0) return;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const call = context as { answerLost?: boolean };
      if (call.answerLost !== undefined || !WRITE_COMMANDS.has(context.commandName ?? '') || random() >= share) {
        call.answerLost ??= false;
        return next(args);
      }
      call.answerLost = true;
      count('dynamodb:first answer of a write lost');
      await next(args).catch(() => undefined);
      throw droppedConnection();
    },
    { step: 'deserialize', name: 'localLostAnswers', override: true },
  );
}

/** A worker's handler that fails a share of its invocations before it runs. */
export function injectInvocationFaults<E, R>(worker: string, share: number, handler: (event: E) => Promise<R>, random = Math.random): (event: E) => Promise<R> {
  if (share <= 0) return handler;
  return async (event) => {
    if (random() < share) {
      count(`${worker}:invocation failed`);
      throw new Error(`${worker} invocation failed (injected by LOCAL_FAULTS)`);
    }
    return handler(event);
  };
}

/** Turns the fault switch on for the SDK clients this thread builds from now on (a function's own). */
export function switchClientFaults(faults: FaultSpec): void {
  if (faults.size === 0) return;
  decorateClients((service, client) => {
    // The root key stands in for KMS locally: there is no call in flight to fail.
    // Connect's calls reach the stand-in, whose own switches drop, delay and throttle.
    if (service === 'dynamodb' || service === 'sqs') injectClientFaults(service, client as never, faults.get(service) ?? 0);
    if (service === 'dynamodb') injectLostAnswers(client as never, faults.get('dynamodb-lost') ?? 0);
  });
}
