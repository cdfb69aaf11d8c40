/**
 * What a partner gets when the store is busy rather than broken: 429 with Retry-After, to be
 * retried with the same Idempotency-Key, never a 500. Found by the full chaos run: a cancel
 * racing the order's processing met a transaction conflict and answered 500.
 */
import { describe, expect, it } from 'vitest';
import { RevisionConflict } from '#shared/errors.ts';
import { problemResponse } from '#shared/http/middleware/problem-json.ts';
import { isTransactionConflict, isTransientAwsError } from '#shared/storage/transient.ts';

const cancelled = (...codes: string[]) =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
    $metadata: { httpStatusCode: 400 },
  });

describe('busy answers', () => {
  it('tells a transaction refused because another held its items from one whose condition failed', () => {
    expect(isTransactionConflict(cancelled('TransactionConflict', 'None'))).toBe(true);
    expect(isTransactionConflict(cancelled('None', 'ThrottlingError'))).toBe(true);
    expect(isTransactionConflict(cancelled('ConditionalCheckFailed', 'None'))).toBe(false);
    expect(isTransactionConflict(cancelled('TransactionConflict', 'ConditionalCheckFailed'))).toBe(false);
    expect(isTransactionConflict(cancelled('None'))).toBe(false);
    expect(isTransientAwsError(cancelled('TransactionConflict'))).toBe(true);
    expect(isTransientAwsError(cancelled('ConditionalCheckFailed'))).toBe(false);
  });

  it('answers a transaction conflict and an order that kept changing with 429 and Retry-After, not 500', () => {
    for (const error of [cancelled('TransactionConflict', 'None'), new RevisionConflict('order o-1 changed')]) {
      const answer = problemResponse(error, '/api/v1/commerce/orders/o-1/cancel', 'req-1');
      expect(answer.statusCode).toBe(429);
      expect(answer.headers).toMatchObject({ 'Retry-After': expect.any(String) });
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'rate_limited', request_id: 'req-1' });
    }
    expect(problemResponse(new Error('a defect'), '/x', 'req-2').statusCode).toBe(500);
  });

  it('answers DynamoDB refusing an item or a key as too large with 413, and any other ValidationException (a defect of ours) with 500', () => {
    const refused = (message: string) => Object.assign(new Error(message), { name: 'ValidationException' });
    for (const message of [
      'Item size has exceeded the maximum allowed size',
      'One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes',
      'One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of 2048 bytes',
    ]) {
      const answer = problemResponse(refused(message), '/api/v1/commerce/orders', 'req-3');
      expect([answer.statusCode, JSON.parse(answer.body).code]).toEqual([413, 'payload_too_large']);
      expect(answer.body).not.toContain('hashkey');
    }
    expect(problemResponse(refused('Invalid UpdateExpression: Syntax error'), '/x', 'req-4').statusCode).toBe(500);
  });
});
