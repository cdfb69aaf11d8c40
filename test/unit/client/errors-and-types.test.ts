/**
 * The client's types turn the contract's words into compile errors, and its errors say what
 * failed where a log line shows them. (`npm test` type-checks this file: each
 * `@ts-expect-error` fails the build once the request it marks compiles.)
 */
import { describe, expect, it } from 'vitest';
import { CommerceApiError, type CommerceClient, type ErrorCode, isTruncated } from '#client/index.ts';

describe('the client’s errors and guards', () => {
  it('refuses at compile time what the service refuses: consent granted without proof, a code the contract does not name', () => {
    // Never called: `npm test` type-checks it.
    const partnerCode = (client: CommerceClient) => {
      const proof = { source: 'checkout', reference: 'c-1', collected_at: '2026-11-01T09:30:00Z' };
      void client.customers.put('c1', { phone: '+4915100000000', locale: 'de-DE', consent: { status: 'granted', proof }, source_version: '1' });
      void client.customers.put('c1', { phone: '+4915100000000', locale: 'de-DE', consent: { status: 'withdrawn' }, source_version: '1' });
      // @ts-expect-error consent granted without its proof is refused by the service (422): the type refuses it first
      void client.customers.put('c1', { phone: '+4915100000000', locale: 'de-DE', consent: { status: 'granted' }, source_version: '1' });
      const code: ErrorCode = 'validation_failed';
      // @ts-expect-error a code the contract does not name
      const unknown: ErrorCode = 'validation_fail';
      return [code, unknown];
    };
    expect(partnerCode).toBeTypeOf('function');
  });

  it('names the first failing field in the message, and how many more there are', () => {
    const error = CommerceApiError.fromProblem(
      422,
      {
        type: 'https://errors.example/validation_failed',
        title: 'Validation failed',
        status: 422,
        code: 'validation_failed',
        detail: '2 fields are invalid',
        errors: [
          { pointer: '/items/0/quantity', message: 'must be at least 1' },
          { pointer: '/currency', message: 'must be an ISO 4217 code' },
        ],
      } as never,
      'req-1',
    );
    expect(error.message).toBe('422 validation_failed: 2 fields are invalid (/items/0/quantity: must be at least 1; 1 more in .errors)');
    expect(error.code).toBe('validation_failed');
    expect(CommerceApiError.fromProblem(404, undefined, undefined).message).toBe('404 http_404: no problem details');
  });

  it('tells a truncated event from a whole one', () => {
    expect(isTruncated({ data: { truncated: true, reason: 'payload_too_large', reference: '/api/v1/commerce/orders/o-1' } })).toBe(true);
    expect(isTruncated({ data: { processing_state: 'completed' } })).toBe(false);
    expect(isTruncated({})).toBe(false);
  });

  it('narrows an event it calls truncated, so its reference reads without a cast (a compile-time check)', () => {
    const event = { event_type: 'commerce.order.result_ready.v1', data: { truncated: true, reason: 'payload_too_large', reference: '/orders/o-1' } as unknown };
    if (!isTruncated(event)) throw new Error('a truncated event');
    const reference: string | null = event.data.reference;
    expect([reference, event.event_type]).toEqual(['/orders/o-1', 'commerce.order.result_ready.v1']);
  });
});
