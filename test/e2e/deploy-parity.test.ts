/**
 * The local runtime runs what `cdk synth` describes: the same settings for every function,
 * mapping and queue (read here from a template synthesized independently, with the CDK's own
 * assertions library), AWS's limits where it stands in for AWS, and its emulators on loopback.
 */

import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, inject, it } from 'vitest';
import { ROUTES } from '#functions/routes.ts';
import { WORKERS } from '#functions/workers.ts';
import { routeFunctionId, workerFunctionId } from '#infra/parts/commerce-function.ts';
import { CommerceInterfaceStack } from '#infra/stack.ts';
import { queueClient } from '#shared/storage/clients.ts';
import { call, newTenant } from '../support/stack.ts';

const settings = inject('localSettings');
const { context } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> };
const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [], 'aws:cdk:enable-path-metadata': true } });
const template = Template.fromStack(new CommerceInterfaceStack(app, 'Parity')).toJSON() as {
  Resources: Record<string, { Type: string; Properties: Record<string, never>; Metadata?: Record<string, string> }>;
};
const resources = Object.entries(template.Resources);
/** The L1 resource a construct id names (`Stack/Id/Resource`). */
const byConstructId = (id: string) => resources.find(([, r]) => r.Metadata?.['aws:cdk:path'] === `Parity/${id}/Resource`)!;

describe('deploy parity: the local runtime runs what the template deploys', () => {
  it('gives every function the timeout, memory and reserved concurrency of its template resource', () => {
    const expected = [
      ...ROUTES.map((r) => [r.operationId, routeFunctionId(r.operationId)] as const),
      ...Object.values(WORKERS).map((w) => [w.name, workerFunctionId(w.name)] as const),
    ].map(([name, constructId]) => {
      const p = byConstructId(constructId)[1].Properties;
      return {
        name,
        timeoutSeconds: p.Timeout,
        memoryMb: p.MemorySize,
        ...(p.ReservedConcurrentExecutions ? { reservedConcurrency: p.ReservedConcurrentExecutions } : {}),
      };
    });
    expect([...settings.functions].sort((a, b) => a.name.localeCompare(b.name))).toEqual(expected.sort((a, b) => a.name.localeCompare(b.name)));
  });

  it('polls the stream and the queue with every setting of their event source mappings, filters included', () => {
    const mappings = resources.filter(([, r]) => r.Type === 'AWS::Lambda::EventSourceMapping').map(([, r]) => r.Properties as Record<string, any>);
    expect(mappings).toHaveLength(Object.keys(settings.pollers).length);
    for (const m of mappings) {
      const fnLogicalId = m.FunctionName.Ref;
      const worker = Object.values(WORKERS).find((w) => byConstructId(workerFunctionId(w.name))[0] === fnLogicalId)!;
      const local = settings.pollers[worker.name] as Record<string, any>;
      expect(local.batchSize).toBe(m.BatchSize);
      expect(local.maxBatchingWindowSeconds).toBe(m.MaximumBatchingWindowInSeconds ?? 0);
      expect(local.reportBatchItemFailures).toBe(m.FunctionResponseTypes?.includes('ReportBatchItemFailures') ?? false);
      expect(local.filterPatterns).toEqual((m.FilterCriteria?.Filters ?? []).map((f: { Pattern: string }) => f.Pattern));
      expect(local.maxConcurrency).toBe(m.ScalingConfig?.MaximumConcurrency);
      if (m.StartingPosition) {
        expect(local.retryAttempts).toBe(m.MaximumRetryAttempts ?? -1);
        expect(local.bisectBatchOnError).toBe(m.BisectBatchOnFunctionError ?? false);
        expect(local.maxRecordAgeSeconds).toBe(m.MaximumRecordAgeInSeconds ?? -1);
        expect(local.parallelizationFactor).toBe(m.ParallelizationFactor ?? 1);
        expect(local.onFailureDestination).toMatch(/StreamFailureQueue$/);
      }
    }
    // The stream processor is invoked only for what it reacts to, never for removals; the indexer sees products only.
    expect(settings.pollers['stream-processor']).toMatchObject({
      filterPatterns: [expect.stringContaining('"NewImage":{"entity":{"S":["order","event","result","job"]}}')],
    });
  });

  it('creates every queue with the visibility timeout, retention, size limit and redrive policy of the template', async () => {
    const env = inject('stack').env;
    const urlOf: Record<string, string> = {
      WebhookQueue: env.WEBHOOK_QUEUE_URL!,
      WebhookDeadLetterQueue: env.WEBHOOK_DLQ_URL!,
      StreamFailureQueue: env.STREAM_FAILURE_QUEUE_URL!,
    };
    for (const [constructId, url] of Object.entries(urlOf)) {
      const p = byConstructId(constructId)[1].Properties as Record<string, any>;
      const { Attributes } = await queueClient().send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }));
      expect(Number(Attributes!.VisibilityTimeout)).toBe(p.VisibilityTimeout ?? 30);
      expect(Number(Attributes!.MessageRetentionPeriod)).toBe(p.MessageRetentionPeriod ?? 345_600);
      expect(Number(Attributes!.MaximumMessageSize)).toBe(p.MaximumMessageSize ?? 262_144);
      if (p.RedrivePolicy) {
        expect(JSON.parse(Attributes!.RedrivePolicy!)).toMatchObject({
          maxReceiveCount: p.RedrivePolicy.maxReceiveCount,
          deadLetterTargetArn: expect.stringMatching(/WebhookDeadLetterQueue$/),
        });
      }
    }
  });

  it('sets every environment value the template gives the functions (bar the process-level NODE_OPTIONS)', () => {
    const env = inject('stack').env;
    const literal = new Map<string, string>();
    for (const [, r] of resources.filter(([, r]) => r.Type === 'AWS::Lambda::Function')) {
      for (const [name, value] of Object.entries((r.Properties as any).Environment?.Variables ?? {})) if (typeof value === 'string') literal.set(name, value);
    }
    literal.delete('NODE_OPTIONS');
    expect(literal.size).toBeGreaterThan(3);
    for (const [name, value] of literal) expect(env[name], name).toBe(value);
    expect(env.TABLE_NAME).toBe('commerce-interface');
    expect(env.KEY_SECRETS_KMS_KEY_ID).toMatch(/^arn:aws:kms:/);
  });
});

describe("AWS's limits where the local runtime stands in for AWS", () => {
  it("refuses a body over Lambda's 6 MB synchronous limit at the gateway (the function never runs), while 3 MB reaches the function", async () => {
    const key = await newTenant();
    const body = (bytes: number) => `{"products":[${'"'.padEnd(bytes - 18, 'x')}"]}`;
    const overLambda = await call(key, 'POST', '/products/batch', { rawBody: body(7 * 1024 * 1024) });
    expect(overLambda.status).toBe(413);
    expect(overLambda.body).toMatchObject({ code: 'payload_too_large', detail: 'The request exceeds the size limit; split large imports.' });
    const overService = await call(key, 'POST', '/products/batch', { rawBody: body(3 * 1024 * 1024) });
    expect(overService.status).toBe(413);
    expect(overService.body.detail).toMatch(/exceeds 2097152 bytes/);
    const overGateway = await call(key, 'POST', '/products/batch', { rawBody: body(11 * 1024 * 1024) });
    expect(overGateway.status).toBe(413);
  });

  it("refuses a queue message over SQS's 256 KiB", async () => {
    const url = inject('stack').env.WEBHOOK_DLQ_URL!;
    await expect(queueClient().send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x'.repeat(256 * 1024 + 1) }))).rejects.toThrow(
      /shorter than 262144 bytes/,
    );
  });
});

describe('the local emulators', () => {
  const ports = () => {
    const env = inject('stack').env;
    return [Number(new URL(env.DYNAMODB_ENDPOINT!).port), Number(new URL(env.SQS_ENDPOINT!).port)];
  };
  /** The listening sockets of this machine (Linux): address and port of each, from /proc/net. */
  const listeners = () =>
    ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(/\s+/))
        .filter((f) => f[3] === '0A')
        .map((f) => ({ address: f[1]!.split(':')[0]!, port: Number.parseInt(f[1]!.split(':')[1]!, 16) })),
    );

  it('listen on 127.0.0.1 only: no socket on another address, and a non-loopback address of this machine is refused', async () => {
    const loopback = new Set(['0100007F', '0000000000000000FFFF00000100007F']);
    for (const port of ports()) {
      const sockets = listeners().filter((l) => l.port === port);
      expect(sockets.length, `port ${port}`).toBeGreaterThan(0);
      for (const socket of sockets) expect(loopback.has(socket.address), `port ${port} listens on ${socket.address}`).toBe(true);
    }
    const external = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i && !i.internal && i.family === 'IPv4');
    for (const address of external) {
      for (const port of ports()) {
        const outcome = await new Promise<string>((resolve) => {
          const socket = connect({ host: address!.address, port }, () => {
            socket.destroy();
            resolve('connected');
          });
          socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
        });
        expect(outcome, `${address!.address}:${port}`).toBe('ECONNREFUSED');
      }
    }
  });
});
