import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { HttpContext } from '#shared/http/middleware/types.ts';
import { validation } from '#shared/http/middleware/validation.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { apiEvent, chain, withState } from './chain.ts';

const contract = defineOperation({
  operationId: 'updateThing',
  params: z.object({ id: z.string().min(2) }),
  query: z.object({ limit: z.coerce.number().int().max(10).optional() }),
  body: z.strictObject({ quantity: z.number().int().min(1) }),
  responses: {},
});

const inputOf = async (body: string, event: Parameters<typeof apiEvent>[0] = {}) => {
  let input: HttpContext['http']['input'];
  await chain([withState({ body: Buffer.from(body) }), validation(contract)], async (_e, context) => {
    input = context.http.input;
    return { statusCode: 200, body: '' };
  })(apiEvent({ pathParameters: { id: 'ab' }, ...event }));
  return input;
};

describe('the validation middleware', () => {
  it('hands the handler the parsed path, query and body', async () => {
    const input = await inputOf('{"quantity":3}', { multiValueQueryStringParameters: { limit: ['5'] } });
    expect(input).toEqual({ ok: true, value: { params: { id: 'ab' }, query: { limit: 5 }, body: { quantity: 3 } } });
  });

  it('keeps a refusal for the handler to answer: 422 with a pointer to each offending field', async () => {
    const input = await inputOf('{"quantity":0,"extra":true}');
    expect(input?.ok).toBe(false);
    const error = (input as { error: { code: string; errors: { pointer: string }[] } }).error;
    expect(error.code).toBe('validation_failed');
    expect(error.errors.map((e) => e.pointer).sort()).toEqual(['/extra', '/quantity']);
  });

  it('refuses a body that is not JSON and a query parameter given twice', async () => {
    expect(await inputOf('{not json')).toMatchObject({ ok: false, error: { errors: [{ pointer: '' }] } });
    expect(await inputOf('{"quantity":1}', { multiValueQueryStringParameters: { limit: ['1', '2'] } })).toMatchObject({
      ok: false,
      error: { errors: [{ pointer: 'query:limit' }] },
    });
  });
});
