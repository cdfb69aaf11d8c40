import { describe, expect, it } from 'vitest';
import { passesFilters } from '#local/event-filter.ts';
import { evaluate, type PolicyStatement } from '#local/iam.ts';
import { STREAM_FILTERS } from '#shared/storage/definition.ts';

const TABLE = 'arn:aws:dynamodb:us-east-1:000000000000:table/t';
const allowWrites: PolicyStatement = { Effect: 'Allow', Action: ['dynamodb:PutItem', 'dynamodb:GetItem'], Resource: [TABLE, `${TABLE}/index/*`] };
const denyKeyWrites: PolicyStatement = {
  Effect: 'Deny',
  Action: ['dynamodb:PutItem'],
  Resource: TABLE,
  Condition: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['KEY#*'] } },
};

describe('the local IAM evaluator (AWS policy evaluation logic for one identity policy)', () => {
  it('denies what no statement allows (implicit deny)', () => {
    expect(evaluate([allowWrites], { action: 'dynamodb:DeleteItem', resource: TABLE })).toBe('implicitly denied');
    expect(evaluate([], { action: 'dynamodb:GetItem', resource: TABLE })).toBe('implicitly denied');
  });

  it('allows an allowed action on a matching resource, index ARNs by wildcard, action names in any case', () => {
    expect(evaluate([allowWrites], { action: 'dynamodb:PutItem', resource: TABLE })).toBe('allowed');
    expect(evaluate([allowWrites], { action: 'dynamodb:getitem', resource: `${TABLE}/index/gsi1` })).toBe('allowed');
    expect(evaluate([allowWrites], { action: 'dynamodb:GetItem', resource: `${TABLE}-other` })).toBe('implicitly denied');
  });

  it('lets an explicit deny win over an allow, and applies a ForAnyValue condition only when a value matches', () => {
    const policy = [allowWrites, denyKeyWrites];
    expect(evaluate(policy, { action: 'dynamodb:PutItem', resource: TABLE, context: { 'dynamodb:LeadingKeys': ['KEY#abc'] } })).toBe('explicitly denied');
    expect(evaluate(policy, { action: 'dynamodb:PutItem', resource: TABLE, context: { 'dynamodb:LeadingKeys': ['T#a#ORDER#1', 'KEY#x'] } })).toBe(
      'explicitly denied',
    );
    expect(evaluate(policy, { action: 'dynamodb:PutItem', resource: TABLE, context: { 'dynamodb:LeadingKeys': ['T#a#ORDER#1'] } })).toBe('allowed');
    // ForAnyValue over an absent or empty key is false: the deny does not apply.
    expect(evaluate(policy, { action: 'dynamodb:PutItem', resource: TABLE })).toBe('allowed');
  });

  it('treats ForAllValues over an absent key as true and a plain operator over an absent key as false', () => {
    const all: PolicyStatement = { Effect: 'Allow', Action: '*', Resource: '*', Condition: { 'ForAllValues:StringEquals': { 'k:x': ['a'] } } };
    const plain: PolicyStatement = { Effect: 'Allow', Action: '*', Resource: '*', Condition: { StringEquals: { 'k:x': 'a' } } };
    expect(evaluate([all], { action: 's:A', resource: 'r' })).toBe('allowed');
    expect(evaluate([all], { action: 's:A', resource: 'r', context: { 'k:x': ['a', 'b'] } })).toBe('implicitly denied');
    expect(evaluate([plain], { action: 's:A', resource: 'r' })).toBe('implicitly denied');
    expect(evaluate([plain], { action: 's:A', resource: 'r', context: { 'k:x': ['a'] } })).toBe('allowed');
  });

  it('refuses to guess about a statement shape it was not taught', () => {
    const notAction = { Effect: 'Allow', NotAction: 'x:Y', Resource: '*' } as unknown as PolicyStatement;
    expect(() => evaluate([notAction], { action: 's:A', resource: 'r' })).toThrow(/NotAction/);
    const ipCondition: PolicyStatement = { Effect: 'Allow', Action: '*', Resource: '*', Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } };
    expect(() => evaluate([ipCondition], { action: 's:A', resource: 'r' })).toThrow(/IpAddress/);
  });
});

describe("the local event filter (Lambda's FilterCriteria)", () => {
  const record = (eventName: string, sk: string, entity?: string) => ({
    eventName,
    dynamodb: { Keys: { pk: { S: 'T#a#X' }, sk: { S: sk } }, ...(entity ? { NewImage: { entity: { S: entity } } } : {}) },
  });
  const streamProcessor = JSON.stringify(STREAM_FILTERS.streamProcessor);

  it("hands the stream processor the inserts and changes of orders, events, results and jobs only, and no removal (TTL's included)", () => {
    expect(passesFilters([streamProcessor], record('INSERT', 'ORDER', 'order'))).toBe(true);
    expect(passesFilters([streamProcessor], record('MODIFY', 'EVENT#1', 'event'))).toBe(true);
    expect(passesFilters([streamProcessor], record('INSERT', 'RESULT', 'result'))).toBe(true);
    expect(passesFilters([streamProcessor], record('INSERT', 'JOB#requalify#p1#t', 'job'))).toBe(true);
    for (const sk of ['NONCE', 'RATE', 'IDEM']) expect(passesFilters([streamProcessor], record('INSERT', sk))).toBe(false);
    // A webhook attempt's writes: the delivery's claim and record, its log entry, the endpoint's slot.
    expect(passesFilters([streamProcessor], record('MODIFY', 'DELIVERY', 'delivery'))).toBe(false);
    expect(passesFilters([streamProcessor], record('INSERT', 'ATTEMPT#1', 'delivery_attempt'))).toBe(false);
    expect(passesFilters([streamProcessor], record('MODIFY', 'SUBSCRIPTION', 'webhook_subscription'))).toBe(false);
    expect(passesFilters([streamProcessor], record('REMOVE', 'ORDER'))).toBe(false);
  });

  it('matches any of several patterns, a missing field never equals a value, and no patterns pass everything', () => {
    const products = JSON.stringify({ dynamodb: { NewImage: { entity: { S: ['product'] } } } });
    expect(passesFilters([products], record('INSERT', 'PRODUCT', 'product'))).toBe(true);
    expect(passesFilters([products], record('REMOVE', 'PRODUCT'))).toBe(false);
    expect(passesFilters([products, streamProcessor], record('INSERT', 'ORDER', 'order'))).toBe(true);
    expect(passesFilters([JSON.stringify({ eventName: [{ prefix: 'INS' }] })], record('INSERT', 'X'))).toBe(true);
    expect(passesFilters([JSON.stringify({ userIdentity: { type: [{ exists: false }] } })], record('REMOVE', 'X'))).toBe(true);
    expect(passesFilters([], record('REMOVE', 'NONCE'))).toBe(true);
    expect(() => passesFilters([JSON.stringify({ eventName: [{ numeric: ['>', 1] }] })], record('INSERT', 'X'))).toThrow(/numeric/);
  });
});
