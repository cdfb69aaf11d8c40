import { describe, expect, it } from 'vitest';
import { requestScope } from '#shared/http/middleware/request-scope.ts';
import type { HttpContext, HttpMiddleware } from '#shared/http/middleware/types.ts';
import { apiEvent, chain } from './chain.ts';

const route = { operationId: 'getOrder', path: '/orders/{externalOrderId}' } as never;

describe('the request scope middleware', () => {
  it('gives the handler the canonical path with the parameter percent-encoded, the raw body and lower-case headers', async () => {
    let seen: HttpContext['http'] | undefined;
    await chain([requestScope(route)], async (_e, context) => {
      seen = context.http;
      return { statusCode: 200, body: '' };
    })(apiEvent({ pathParameters: { externalOrderId: 'a b/ü' }, headers: { 'X-Thing': 'v' }, body: 'aGk=', isBase64Encoded: true }));
    expect(seen?.path).toBe('/api/v1/commerce/orders/a%20b%2F%C3%BC');
    expect(seen?.headers['x-thing']).toBe('v');
    expect(seen?.body.toString()).toBe('hi');
  });

  it('uses a well-formed X-Correlation-Id and falls back to the request id for a malformed one', async () => {
    const correlationOf = async (header: string) => {
      let id = '';
      await chain([requestScope(route)], async (_e, context) => {
        id = context.http.correlationId;
        return { statusCode: 200, body: '' };
      })(apiEvent({ headers: { 'X-Correlation-Id': header } }));
      return id;
    };
    expect(await correlationOf('order-import:42')).toBe('order-import:42');
    expect(await correlationOf('bad id with spaces')).toBe('req-1');
  });

  it('puts X-Request-Id on a success and on an answer another middleware made of an error', async () => {
    const success = await chain([requestScope(route)])();
    expect(success.headers?.['X-Request-Id']).toBe('req-1');
    const renderer: HttpMiddleware = {
      onError: (request) => {
        request.response = { statusCode: 418, body: '' };
      },
    };
    const rendered = await chain([requestScope(route), renderer], async () => {
      throw new Error('x');
    })();
    expect(rendered).toMatchObject({ statusCode: 418, headers: { 'X-Request-Id': 'req-1' } });
  });
});
