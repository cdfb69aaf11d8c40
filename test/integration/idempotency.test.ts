import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { lambdaContext } from '#local/lambda-context.ts';
import type { HttpMethod } from '#shared/api/routes.ts';
import { idempotency, REPLAYED_HEADER, tableIdempotencyStore } from '#shared/http/middleware/idempotency.ts';
import type { HttpContext } from '#shared/http/middleware/types.ts';
import { MIDDY_OPTIONS } from '#shared/http/pipeline.ts';
import { dynamoClient, tableClient, tableName } from '#shared/storage/clients.ts';
import { scanByKeyPrefix } from '../support/scan.ts';
import { newTenant } from '../support/stack.ts';

const context = (): Context => lambdaContext('test', 10, 512);

/** The idempotency middleware around `execute`, as the pipeline runs it after authentication. */
function runIdempotent(
  request: { tenant: string; idempotency_key: string; method: string; path: string; body_sha256: string },
  ctx: Context,
  execute: () => Promise<APIGatewayProxyResult>,
): Promise<APIGatewayProxyResult> {
  // The pipeline's own Middy options (no early timeout), as every function runs the chain.
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>(MIDDY_OPTIONS)
    .use({
      before: ({ context }) => {
        context.http = {
          requestId: randomUUID(),
          correlationId: 'test',
          headers: { 'idempotency-key': request.idempotency_key, 'x-svc-content-sha256': request.body_sha256 },
          path: request.path,
          body: Buffer.alloc(0),
          principal: { tenant: request.tenant, keyId: 'key_test', scopes: [] },
        };
      },
    })
    .use(idempotency(request.method as HttpMethod, tableIdempotencyStore(tableName(), dynamoClient())))
    .handler(async (_event, { http }) => http.replay ?? execute());
  return chain({} as APIGatewayProxyEvent, ctx as HttpContext);
}

/** A mutation that counts its executions in the table, so a double execution is visible. */
function countingMutation(counterPk: string, delayMs = 50) {
  return async () => {
    await new Promise((r) => setTimeout(r, delayMs));
    const { Attributes } = await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: counterPk, sk: 'COUNTER' },
        UpdateExpression: 'ADD executions :one',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { statusCode: 201, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ executions: Attributes!.executions }) };
  };
}

const executions = async (pk: string) =>
  (await tableClient().send(new GetCommand({ TableName: tableName(), Key: { pk, sk: 'COUNTER' } }))).Item?.executions ?? 0;

const requestFor = (tenant: string, key: string, overrides: Partial<{ method: string; path: string; body_sha256: string }> = {}) => ({
  tenant,
  idempotency_key: key,
  method: 'POST',
  path: '/api/v1/commerce/orders',
  body_sha256: 'a'.repeat(64),
  ...overrides,
});

/** Twenty concurrent requests with one new key: one runs, each other replays or is told the first is in progress. */
async function concurrentIdenticalRequests(tenant: string) {
  const counter = `T#${tenant}#TEST#${randomUUID()}`;
  const key = randomUUID();
  const outcomes = await Promise.allSettled(
    Array.from({ length: 20 }, () => runIdempotent(requestFor(tenant, key), context(), countingMutation(counter, 200))),
  );
  expect(await executions(counter)).toBe(1);
  const fulfilled = outcomes.filter((o) => o.status === 'fulfilled').map((o) => (o as PromiseFulfilledResult<{ headers?: Record<string, unknown> }>).value);
  const rejected = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason);
  expect(fulfilled.filter((r) => r.headers?.[REPLAYED_HEADER] !== 'true')).toHaveLength(1);
  for (const error of rejected) expect(error).toMatchObject({ code: 'idempotency_key_reused', reason: 'in_progress' });
  // After the first finished, a retry is a replay of the stored response.
  const retry = await runIdempotent(requestFor(tenant, key), context(), countingMutation(counter));
  expect(retry.headers?.[REPLAYED_HEADER]).toBe('true');
  expect(JSON.parse(retry.body)).toEqual({ executions: 1 });
  expect(retry.statusCode).toBe(201);
  expect(await executions(counter)).toBe(1);
}

describe('idempotency on the single table (DynamoDB Local)', () => {
  it('executes 20 concurrent identical requests exactly once, 20 times in a row; the others replay or get in_progress', async () => {
    const { tenant } = await newTenant();
    for (let round = 0; round < 20; round++) await concurrentIdenticalRequests(tenant);
  });

  it('runs once when concurrent requests share one deadline (same timeout, started in the same millisecond)', async () => {
    const { tenant } = await newTenant();
    const counter = `T#${tenant}#TEST#${randomUUID()}`;
    const key = randomUUID();
    const sameDeadline = context();
    await Promise.allSettled(Array.from({ length: 8 }, () => runIdempotent(requestFor(tenant, key), sameDeadline, countingMutation(counter, 200))));
    expect(await executions(counter)).toBe(1);
  });

  it('answers 409 payload_mismatch when the key is reused for another body, path or method', async () => {
    const { tenant } = await newTenant();
    const counter = `T#${tenant}#TEST#${randomUUID()}`;
    const key = randomUUID();
    await runIdempotent(requestFor(tenant, key), context(), countingMutation(counter, 0));
    for (const change of [{ body_sha256: 'b'.repeat(64) }, { path: '/api/v1/commerce/orders/x/cancel' }, { method: 'PUT' }]) {
      await expect(runIdempotent(requestFor(tenant, key, change), context(), countingMutation(counter, 0))).rejects.toMatchObject({
        code: 'idempotency_key_reused',
        reason: 'payload_mismatch',
      });
    }
    expect(await executions(counter)).toBe(1);
  });

  it("never replays one tenant's response to another tenant using the same key", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const key = `shared-${randomUUID()}`;
    const counterA = `T#${a.tenant}#TEST#${randomUUID()}`;
    const counterB = `T#${b.tenant}#TEST#${randomUUID()}`;
    await runIdempotent(requestFor(a.tenant, key), context(), countingMutation(counterA, 0));
    const forB = await runIdempotent(requestFor(b.tenant, key), context(), countingMutation(counterB, 0));
    expect(forB.headers?.[REPLAYED_HEADER]).toBeUndefined();
    expect(await executions(counterB)).toBe(1);
  });

  it('does not store an unexpected error: a retry executes again', async () => {
    const { tenant } = await newTenant();
    const counter = `T#${tenant}#TEST#${randomUUID()}`;
    const key = randomUUID();
    await expect(runIdempotent(requestFor(tenant, key), context(), async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const retry = await runIdempotent(requestFor(tenant, key), context(), countingMutation(counter, 0));
    expect(retry.headers?.[REPLAYED_HEADER]).toBeUndefined();
    expect(await executions(counter)).toBe(1);
  });

  it('keeps the claim when the answer cannot be stored: a duplicate gets in_progress, never a second run beside the first', async () => {
    const { tenant } = await newTenant();
    const counter = `T#${tenant}#TEST#${randomUUID()}`;
    const key = randomUUID();
    // An answer too large to keep even compressed (random bytes do not compress).
    const unkeepable = async () => {
      await countingMutation(counter, 0)();
      return { statusCode: 201, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ blob: randomBytes(400_000).toString('base64') }) };
    };
    expect((await runIdempotent(requestFor(tenant, key), context(), unkeepable)).statusCode).toBe(201);
    await expect(runIdempotent(requestFor(tenant, key), context(), countingMutation(counter, 0))).rejects.toMatchObject({
      name: 'IdempotencyConflictError',
      reason: 'in_progress',
    });
    expect(await executions(counter)).toBe(1);
  });

  it('stores each record under its own tenant-prefixed partition key, never a shared static one', async () => {
    const { tenant } = await newTenant();
    const key = randomUUID();
    await runIdempotent(requestFor(tenant, key), context(), countingMutation(`T#${tenant}#TEST#${randomUUID()}`, 0));
    const found = (await scanByKeyPrefix(`T#${tenant}#IDEM#`)).filter((item) => item.sk === 'IDEM');
    expect(found).toHaveLength(1);
    // Powertools' hash (base64 SHA-256, not its default MD5) of (tenant, key): one partition key per record.
    expect(found[0]!.pk).toMatch(new RegExp(`^T#${tenant}#IDEM#commerce#[A-Za-z0-9+/]{43}=$`));
    expect(String(found[0]!.validation)).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });
});
