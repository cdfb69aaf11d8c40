/**
 * A local EventBridge default bus on loopback: it accepts `PutEvents` (AWS JSON 1.1,
 * `X-Amz-Target: AWSEvents.PutEvents`) from the real SDK client and routes each event, as
 * EventBridge does, by the synthesized template's rules (their `EventPattern`) to their SQS
 * targets, in EventBridge's envelope. A rule with a target of any other kind is refused at start,
 * so the bus cannot silently drop what AWS would deliver. Scheduled rules are the runtime's timers.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Template } from './deployment.ts';
import { passesFilters } from './event-filter.ts';

export interface EventRoute {
  /** The rule's logical id. */
  rule: string;
  /** The rule's pattern as JSON (`detail-type` spelled as EventBridge does). */
  pattern: string;
  /** The target queues' ARNs. */
  queueArns: string[];
}

/** The template's event-pattern rules and their queue targets, ARNs resolved by `queueArnOf` (a target's logical id). */
export function eventRoutes(template: Template, queueArnOf: (logicalId: string) => string): EventRoute[] {
  return Object.entries(template.Resources)
    .filter(([, r]) => r.Type === 'AWS::Events::Rule' && r.Properties?.EventPattern)
    .map(([rule, r]) => {
      const targets = (r.Properties!.Targets ?? []) as { Arn: { 'Fn::GetAtt'?: [string, string] } }[];
      return {
        rule,
        pattern: JSON.stringify(r.Properties!.EventPattern),
        queueArns: targets.map((t) => {
          const [logicalId, attribute] = t.Arn['Fn::GetAtt'] ?? [];
          if (!logicalId || attribute !== 'Arn' || !logicalId.includes('Queue'))
            throw new Error(`rule ${rule} has a target the local event bus cannot deliver to: ${JSON.stringify(t.Arn)}`);
          return queueArnOf(logicalId);
        }),
      };
    });
}

interface PutEventsEntry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  Resources?: string[];
  Time?: string | number;
}

export interface LocalEventBus {
  endpoint: string;
  /** Events put, and how many targets each reached (a test reads what was routed). */
  readonly delivered: { detailType: string; targets: number }[];
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

const answer = (response: ServerResponse, status: number, body: unknown, errorType?: string) => {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
  response.end(JSON.stringify(errorType ? { __type: errorType, message: String((body as { message?: string }).message ?? '') } : body));
};

/** EventBridge's envelope of an entry, as its targets receive it. */
function envelope(entry: PutEventsEntry, region: string): Record<string, unknown> {
  const time = entry.Time === undefined ? new Date() : new Date(typeof entry.Time === 'number' ? entry.Time * 1000 : entry.Time);
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': entry.DetailType,
    source: entry.Source,
    account: '000000000000',
    time: time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: entry.Resources ?? [],
    detail: JSON.parse(entry.Detail ?? '{}'),
  };
}

export async function startLocalEventBus(options: {
  routes: EventRoute[];
  sqs: SQSClient;
  queueUrlOf: (arn: string) => string;
  region: string;
}): Promise<LocalEventBus> {
  const delivered: { detailType: string; targets: number }[] = [];
  const put = async (entries: PutEventsEntry[]) =>
    Promise.all(
      entries.map(async (entry) => {
        const event = envelope(entry, options.region);
        const targets = options.routes.filter((route) => passesFilters([route.pattern], event)).flatMap((route) => route.queueArns);
        for (const arn of targets) await options.sqs.send(new SendMessageCommand({ QueueUrl: options.queueUrlOf(arn), MessageBody: JSON.stringify(event) }));
        delivered.push({ detailType: String(entry.DetailType), targets: targets.length });
        return { EventId: event.id };
      }),
    );
  const server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST' || request.headers['x-amz-target'] !== 'AWSEvents.PutEvents')
        return answer(
          response,
          400,
          { message: `the local event bus answers only PutEvents, not ${String(request.headers['x-amz-target'])}` },
          'UnknownOperationException',
        );
      const body = JSON.parse(await readBody(request)) as { Entries?: PutEventsEntry[] };
      const entries = await put(body.Entries ?? []);
      return answer(response, 200, { FailedEntryCount: 0, Entries: entries });
    })().catch((error: unknown) => answer(response, 400, { message: (error as Error).message }, 'ValidationException'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    delivered,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
