/**
 * The bundles evaluate Powertools idempotency's JMESPath with a shim (infra/powertools-jmespath.ts):
 * every record's key and payload hash must come out as Powertools' own interpreter makes them,
 * or a deployed function would miss the records it wrote, and answer a retry as a new request.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { search as shimSearch } from '#infra/powertools-jmespath.ts';
import { IDEMPOTENCY_JMESPATH } from '#shared/http/middleware/idempotency.ts';

// The interpreter Powertools idempotency itself resolves (nested under it in node_modules).
const fromIdempotency = createRequire(createRequire(import.meta.url).resolve('@aws-lambda-powertools/idempotency'));
const { search: powertoolsSearch } = (await import(pathToFileURL(fromIdempotency.resolve('@aws-lambda-powertools/jmespath')).href)) as {
  search: (expression: string, data: unknown) => unknown;
};

const FIELDS = ['tenant', 'idempotency_key', 'method', 'path', 'body_sha256'] as const;
const value = fc.oneof(fc.string(), fc.constant(null), fc.constant(undefined), fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 2 }));
const payload = fc.oneof(
  fc.record(Object.fromEntries(FIELDS.map((f) => [f, value])), { requiredKeys: [] }),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.string(),
);

describe("the bundles' JMESPath", () => {
  for (const [name, expression] of Object.entries(IDEMPOTENCY_JMESPATH)) {
    it(`selects what Powertools' JMESPath selects for the ${name} expression, ${expression}`, () => {
      fc.assert(
        fc.property(payload, (data) => {
          // Powertools hashes the selection's JSON: the same JSON is the same record.
          expect(JSON.stringify(shimSearch(expression, data))).toBe(JSON.stringify(powertoolsSearch(expression, data)));
        }),
        { numRuns: 2_000 },
      );
    });
  }

  it('selects the fields of a request in their order', () => {
    const request = { tenant: 't1', idempotency_key: 'k-1', method: 'POST', path: '/v1/orders', body_sha256: 'abc' };
    expect(shimSearch(IDEMPOTENCY_JMESPATH.key, request)).toEqual(['t1', 'k-1']);
    expect(shimSearch(IDEMPOTENCY_JMESPATH.payload, request)).toEqual(['POST', '/v1/orders', 'abc']);
  });

  it('refuses any other expression rather than answering something else', () => {
    for (const expression of ['tenant', 'a.b', '[a.b, c]', '{a: a}', '[a, `1`]', '[]'])
      expect(() => shimSearch(expression, { a: { b: 1 }, c: 2, tenant: 't' })).toThrow(/multi-select lists of field names only/);
  });
});
