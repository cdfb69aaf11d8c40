/**
 * The fault switch fails calls the way AWS does, inside the SDK's retry loop: a throttled or
 * 5xx call never reached the service and is retried; a dropped connection reached it (the
 * write happened) and is retried too, which is what the product's idempotency must absorb.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { injectClientFaults, injectedFaults, injectInvocationFaults, parseFaults } from '#local/faults.ts';

/** A DynamoDB client whose "network" answers an empty GetItem and counts what reached it. */
function countingClient() {
  const reached = { calls: 0 };
  const client = new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    maxAttempts: 6,
    requestHandler: {
      handle: async () => {
        reached.calls++;
        return { response: { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: new Uint8Array(Buffer.from('{}')) } };
      },
    },
  });
  return { client, reached };
}

/** A random source that plays back `values`, then answers "no fault" for ever. */
const scripted = (values: number[]) => () => values.shift() ?? 0.99;

describe('the local fault switch', () => {
  it('parses name:share lists and refuses anything else', () => {
    expect([...parseFaults('dynamodb:0.05, sqs:0.1,stream-processor:1')]).toEqual([
      ['dynamodb', 0.05],
      ['sqs', 0.1],
      ['stream-processor', 1],
    ]);
    expect(parseFaults(undefined).size).toBe(0);
    for (const bad of ['dynamodb', 'dynamodb:2', 'dynamodb:x', 'Dyn amo:0.1']) expect(() => parseFaults(bad)).toThrow(/LOCAL_FAULTS/);
  });

  it('fails a throttled call before it reaches the service, and the SDK retries it', async () => {
    const { client, reached } = countingClient();
    // Fault on the first attempt, of the "before" kind, the first error of the list.
    injectClientFaults('dynamodb', client, 0.5, scripted([0.1, 0.9, 0]));
    const before = injectedFaults['dynamodb:ProvisionedThroughputExceededException'] ?? 0;
    await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }));
    expect(reached.calls).toBe(1);
    expect(injectedFaults['dynamodb:ProvisionedThroughputExceededException']).toBe(before + 1);
  });

  it('drops the connection after the service acted, and the SDK sends the call again', async () => {
    const { client, reached } = countingClient();
    injectClientFaults('dynamodb', client, 0.5, scripted([0.1, 0.2]));
    await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }));
    // The service saw the call twice: once before the drop, once on the retry.
    expect(reached.calls).toBe(2);
  });

  it('fails a share of a worker’s invocations before its handler runs', async () => {
    let ran = 0;
    const handler = injectInvocationFaults('stream-processor', 0.5, async () => ++ran, scripted([0.1, 0.9]));
    await expect(handler({})).rejects.toThrow(/stream-processor invocation failed/);
    await expect(handler({})).resolves.toBe(1);
  });
});
