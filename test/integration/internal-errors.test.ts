import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { lambdaContext } from '#local/lambda-context.ts';
import { BASE_PATH } from '#shared/api/routes.ts';
import { signRequest } from '#shared/auth/signing.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { newTenant } from '../support/stack.ts';

// The functions' composition root reads the environment at import: after the stack set it.
const { readHandler } = await import('#functions/http/handler.ts');

describe('an unexpected error inside a handler', () => {
  it('answers 500 internal_error with only a generic detail and the request id, and logs the stack', async () => {
    const key = await newTenant();
    const secretDetail = 'connection to 10.1.2.3 refused in /srv/app/shared/orders/order-store.ts:42';
    const handler = readHandler(defineOperation({ operationId: 'getCapabilities', responses: {} }), async () => {
      throw new Error(secretDetail);
    });
    const path = `${BASE_PATH}/capabilities`;
    const requestId = randomUUID();
    const event = {
      httpMethod: 'GET',
      path,
      resource: path,
      headers: signRequest(key, { method: 'GET', path, nonce: randomUUID() }),
      multiValueQueryStringParameters: null,
      pathParameters: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId },
    } as unknown as APIGatewayProxyEvent;

    // The handler runs in this process: its log lines are captured right here.
    const lines: string[] = [];
    const streams = [process.stdout, process.stderr];
    const writes = streams.map((stream) => stream.write.bind(stream));
    streams.forEach((stream, i) => {
      stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        lines.push(String(chunk));
        return (writes[i] as (...args: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof stream.write;
    });
    const res = await handler(event, lambdaContext('test', 10, 512)).finally(() => {
      for (const [i, stream] of streams.entries()) stream.write = writes[i]!;
    });
    expect(res.statusCode).toBe(500);
    expect(res.headers?.['Content-Type']).toBe('application/problem+json');
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ code: 'internal_error', status: 500, request_id: requestId, instance: path });
    expect(res.body).not.toContain('10.1.2.3');
    expect(res.body).not.toMatch(/\.ts|at \w+ \(/);

    const logged = lines
      .join('\n')
      .split('\n')
      .filter((l) => l.includes(requestId))
      .map((l) => JSON.parse(l));
    const error = logged.find((l) => l.level === 'ERROR');
    expect(error).toMatchObject({
      request_id: requestId,
      tenant: key.tenant,
      route: 'getCapabilities',
      error: { message: secretDetail, stack: expect.stringContaining('Error:') },
    });
  });
});
