/**
 * Lambda invokes the stream processor only for the entities of its event filter
 * (STREAM_PROCESSOR_ENTITIES): a reaction acting on any other entity's change would never run
 * once deployed. Every reaction of the stream processor is handed an insert and a change of
 * every other entity the table holds, each dressed to tempt it (a stream-work entry, a state
 * due for work, an event type), with every AWS call refused and counted: none may act.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';

process.env.TABLE_NAME ??= 'commerce';
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'none';
process.env.AWS_SECRET_ACCESS_KEY ??= 'none';

const { decorateClients } = await import('#shared/storage/clients.ts');
const awsCalls: string[] = [];
type Stack = { add(middleware: (next: unknown, context: { commandName: string }) => () => Promise<never>, options: { step: string }): void };
decorateClients((service, client) =>
  (client.middlewareStack as unknown as Stack).add(
    (_next, context) => async () => {
      awsCalls.push(`${service} ${context.commandName}`);
      throw new Error('no AWS call is expected here');
    },
    { step: 'initialize' },
  ),
);
const { reactions, handler } = await import('#functions/workers/stream-processor.ts');
const { STREAM_PROCESSOR_ENTITIES } = await import('#shared/storage/definition.ts');

/** Every entity the table holds besides the stream processor's. */
const OTHER_ENTITIES = [
  'api_key',
  'audit',
  'call_attempt',
  'customer',
  'customer_order',
  'delivery',
  'delivery_attempt',
  'delivery_payload',
  'product',
  'sales_rule',
  'tenant',
  'variant_index',
  'webhook_subscription',
];

const tempting = (entity: string) => ({
  pk: `T#t1#${entity.toUpperCase()}#x`,
  sk: entity.toUpperCase(),
  entity,
  tenant: 't1',
  external_order_id: 'o1',
  processing_state: 'received',
  event_type: 'commerce.order.received.v1',
  final_order_snapshot: { confirmed: true },
  gsi2pk: 'STREAMDUE#0',
  gsi2sk: '2000-01-01T00:00:00.000Z',
  revision: 1,
});

const streamEvent = (entity: string): DynamoDBStreamEvent => ({
  Records: (['INSERT', 'MODIFY'] as const).map((eventName, n) => ({
    eventName,
    dynamodb: {
      Keys: marshall({ pk: tempting(entity).pk, sk: tempting(entity).sk }) as never,
      NewImage: marshall(tempting(entity)) as never,
      ...(eventName === 'MODIFY' ? { OldImage: marshall({ ...tempting(entity), revision: 0 }) as never } : {}),
      SequenceNumber: String(n + 1),
    },
  })),
});

describe("the stream processor's event filter", () => {
  beforeEach(() => {
    awsCalls.length = 0;
  });

  it('covers the entities the table holds, each exactly once', () => {
    expect(new Set([...STREAM_PROCESSOR_ENTITIES, ...OTHER_ENTITIES]).size).toBe(STREAM_PROCESSOR_ENTITIES.length + OTHER_ENTITIES.length);
    expect(reactions.length).toBeGreaterThan(3);
  });

  it.each(OTHER_ENTITIES)('leaves no work undone when a change of %s never reaches the function', async (entity) => {
    const answer = await handler(streamEvent(entity));
    expect({ entity, awsCalls, failures: answer.batchItemFailures }).toEqual({ entity, awsCalls: [], failures: [] });
  });

  it('sees an order it would act on call AWS (the check above can fail)', async () => {
    const answer = await handler(streamEvent('order'));
    expect(awsCalls.length).toBeGreaterThan(0);
    expect(answer.batchItemFailures).toHaveLength(1);
  });
});
