/** The strict contract check the e2e suite runs every answer and event through can fail, and fails for what it should. */
import { describe, expect, it } from 'vitest';
import { answerViolations, eventViolations } from '../support/contract.ts';

const problem = { type: 'urn:x', title: 'Not Found', status: 404, code: 'resource_not_found', detail: 'No order o-1.', instance: '/x', request_id: 'r' };

describe('the strict contract check', () => {
  it('accepts an answer as the contract declares it, and names an undeclared member, a missing one and an undeclared status', () => {
    const path = '/api/v1/commerce/orders/o-1/result';
    expect(answerViolations('GET', path, 404, 'application/problem+json', { ...problem, processing_state: 'scheduled', result_expected: true })).toEqual([]);
    expect(answerViolations('GET', path, 404, 'application/problem+json', { ...problem, debug: 'stack' })).toEqual([
      '/ must NOT have additional properties: debug',
    ]);
    const { request_id: _, ...withoutId } = problem;
    expect(answerViolations('GET', path, 404, 'application/problem+json', withoutId)).toEqual(["/ must have required property 'request_id'"]);
    expect(answerViolations('GET', path, 418, 'application/problem+json', problem)).toEqual(['status 418 is not declared for getOrderResult']);
    expect(answerViolations('GET', path, 404, 'text/html', problem)).toEqual(['text/html is not declared for getOrderResult 404']);
  });

  it('takes the operation by method and path, the batch route before the one with a parameter', () => {
    const body = { accepted: 0, rejected: 0, results: [], extra: 1 };
    expect(answerViolations('POST', '/api/v1/commerce/products/batch', 200, 'application/json', body)).toEqual([
      '/ must NOT have additional properties: extra',
    ]);
  });

  it('holds a delivered event to its type in the webhooks section', () => {
    expect(eventViolations('{"event_type":"commerce.unknown.v1"}')).toEqual(['event_type commerce.unknown.v1 is not in the contract']);
    expect(eventViolations('not json')).toEqual(['the body is not JSON']);
    expect(eventViolations(JSON.stringify({ event_type: 'commerce.order.status_changed.v1' })).length).toBeGreaterThan(0);
  });
});
