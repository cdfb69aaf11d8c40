/**
 * Property tests over random bodies, queries and headers on every built route: the pipeline
 * never answers 5xx to bad input, and every error body validates against the Problem schema
 * of the published OpenAPI document.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.ts';
import type { Route } from '#shared/api/routes.ts';
import { repoRoot } from '../support/paths.ts';
import { call, newTenant, samplePath } from '../support/stack.ts';

const openapi = JSON.parse(readFileSync(`${repoRoot}/contract/openapi.json`, 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(openapi, 'openapi.json');
const validateProblem = ajv.getSchema('openapi.json#/components/schemas/Problem')!;

const built: Route[] = [];
for (const route of ROUTES) {
  const { contract } = (await import(/* @vite-ignore */ `../../${route.handler}`)) as { contract: { problems?: readonly string[] } };
  if (!contract.problems?.includes('not_implemented')) built.push(route);
}

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
const body = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.record({ products: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }) }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
  fc
    .dictionary(fc.constantFrom('phone', 'locale', 'consent', 'source_version', 'rule_type', 'applies_to', 'action', 'x'), fc.jsonValue({ maxDepth: 2 }))
    .map((v) => JSON.stringify(v)),
);
const query = fc.dictionary(fc.constantFrom('limit', 'cursor', 'q', 'category', 'status', 'availability', 'include_archived', 'enabled', 'zzz'), printable, {
  maxKeys: 3,
});
const request = fc.record({
  route: fc.constantFrom(...built),
  id: fc.oneof(fc.constant('p-1'), fc.string({ minLength: 1, maxLength: 30 })),
  body,
  query,
  contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/xml'),
  idempotencyKey: fc.oneof(fc.constant(undefined), printable),
  correlationId: fc.oneof(fc.constant(undefined), printable),
});

describe('the pipeline under random input', () => {
  it('never answers 5xx to bad input, and every error body validates against the OpenAPI Problem schema', async () => {
    const key = await newTenant();
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const res = await call(key, r.route.method, samplePath(r.route.path, r.id), {
          ...(r.body !== undefined && r.route.method !== 'GET' ? { rawBody: r.body } : {}),
          query: r.query,
          headers: {
            'Content-Type': r.contentType,
            ...(r.idempotencyKey !== undefined ? { 'Idempotency-Key': r.idempotencyKey } : {}),
            ...(r.correlationId !== undefined ? { 'X-Correlation-Id': r.correlationId } : {}),
          },
        });
        seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
        expect(res.status, res.text).toBeLessThan(500);
        expect(res.headers.get('x-request-id')).toBeTruthy();
        if (res.status >= 400) {
          expect(res.headers.get('content-type')).toBe('application/problem+json');
          expect(validateProblem(res.body), JSON.stringify(validateProblem.errors)).toBe(true);
          expect(res.body.status).toBe(res.status);
          expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
        }
      }),
      { numRuns: 300 },
    );
    // The inputs must get past authentication into validation and the handlers, or the property says little.
    expect([...seen.keys()]).toEqual(expect.arrayContaining([200, 404, 415, 422]));
  });
});
