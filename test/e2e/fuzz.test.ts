/**
 * Bad input from every side: more than 10,000 signed requests over every route of the route
 * table, with bodies generated from the contract's own schemas (now and then with every array
 * and string as long as the contract allows) and then made worse (wrong
 * types, missing and unknown fields, huge and deeply nested arrays, long and broken Unicode),
 * paths with any ids (and broken percent-encoding), and odd or repeated query parameters.
 * Every answer must be a success or a problem+json 4xx with a code the contract lists for the
 * operation, no answer may pass 1 MiB, and the runtime's memory must stay bounded.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.ts';
import type { Route } from '#shared/api/routes.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { PROBLEM_CODES, type ProblemCode } from '#shared/http/problem.ts';
import { repoRoot } from '../support/paths.ts';
import { arbitraryFor, longestString, mutated } from '../support/schema-arbitrary.ts';
import { call, newTenant } from '../support/stack.ts';

const FUZZ_REQUESTS_PER_ROUTE = 400;
/** The cases of each route in the first pass, before the runtime's memory is measured. */
const WARM_UP_CASES = 40;
/** What the runtime's own thread and each function's thread may grow by after the first pass (measured: about 16 MiB a function). */
const RUNTIME_GROWTH_MB = 100;
const GROWTH_PER_FUNCTION_MB = 24;
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);

const openapi = JSON.parse(readFileSync(join(repoRoot, 'contract/openapi.json'), 'utf8'));
const components = openapi.components.schemas;

/** The problem codes the contract lists for an operation. */
function documentedCodes(route: Route): Set<string> {
  const operation = openapi.paths[route.path][route.method.toLowerCase()];
  return new Set(
    Object.entries(operation.responses as Record<string, { description: string }>)
      .filter(([status]) => Number(status) >= 400)
      .flatMap(([, r]) => r.description.split(', ')),
  );
}

const idArbitrary = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map(encodeURIComponent),
  // The longest ids the contract allows (255 characters, at most 1,020 bytes) and just past them.
  fc.oneof(longestString(255), longestString(256), fc.constantFrom('🚀'.repeat(63), '🚀'.repeat(64))).map(encodeURIComponent),
  fc.constantFrom('%E0%A4%A', '%zz', '%', 'a%2Fb', '%00', 'x'.repeat(300), encodeURIComponent('🚀#%'), 'dlv_abc'),
);

function requestArbitrary(route: Route) {
  const operation = openapi.paths[route.path][route.method.toLowerCase()];
  const bodySchema = operation.requestBody?.content['application/json'].schema;
  const body = bodySchema ? arbitraryFor(bodySchema, components).chain(mutated) : fc.oneof(fc.constant(undefined), fc.constant(undefined), fc.jsonValue());
  const queryNames: string[] = (operation.parameters ?? []).filter((p: { in?: string }) => p.in === 'query').map((p: { name: string }) => p.name);
  const query = fc.dictionary(
    fc.constantFrom(...queryNames, 'unexpected', 'limit', 'cursor'),
    fc.oneof(
      fc.string({ maxLength: 30 }).map((v) => [v]),
      fc.tuple(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })).map(([a, b]) => [a, b]),
    ),
    { maxKeys: 3 },
  );
  const path = fc.tuple(...[...route.path.matchAll(/\{(\w+)\}/g)].map(() => idArbitrary)).map((ids) => {
    let i = 0;
    return route.path.replace(/\{(\w+)\}/g, () => ids[i++]!);
  });
  return fc.record({ path, query, body });
}

const rssOfRuntime = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${process.ppid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

describe('bad input from every side', () => {
  it(`answers ${FUZZ_REQUESTS_PER_ROUTE * ROUTES.length} generated requests over all ${ROUTES.length} routes with a success or a documented problem`, {
    timeout: 900_000,
  }, async () => {
    const key = await newTenant();
    const failures: string[] = [];
    let answered = 0;
    const samplesOf = ROUTES.map((route, index) => fc.sample(requestArbitrary(route), { numRuns: FUZZ_REQUESTS_PER_ROUTE, seed: SEED + index }));
    const send = async (route: Route, samples: (typeof samplesOf)[number]) => {
      const codes = documentedCodes(route);
      await mapWithConcurrency(samples, 8, async (sample) => {
        const query = Object.fromEntries(Object.entries(sample.query).map(([k, v]) => [k, v as string[]]));
        const withBody = sample.body !== undefined && route.method !== 'GET';
        const res = await call(key, route.method, sample.path, { query, ...(withBody ? { body: sample.body } : {}) }).catch((error: Error) => {
          // No answer at all (the connection reset) is the worst answer: say what was sent.
          failures.push(
            `${route.method} ${sample.path}: no answer (${String(error.cause ?? error)}), body of ${JSON.stringify(sample.body ?? null).length} characters: ${JSON.stringify(sample.body ?? null).slice(0, 200)}`,
          );
          return undefined;
        });
        if (!res) return;
        answered++;
        const what = `${route.method} ${sample.path} → ${res.status} ${res.text.slice(0, 200)}`;
        if (res.text.length > 1024 * 1024) failures.push(`answer over 1 MiB: ${what}`);
        if (res.status >= 500) failures.push(what);
        if (res.status >= 400 && res.status < 500) {
          const code = res.body?.code as ProblemCode | undefined;
          const routed = res.headers.get('content-type') === 'application/problem+json' && code !== undefined;
          if (!routed || PROBLEM_CODES[code]?.status !== res.status) failures.push(`not a problem: ${what}`);
          else if (!codes.has(code)) failures.push(`undocumented code ${code}: ${what}`);
        }
      });
    };
    // A first pass of every route's first cases: each function started and its heap grown to its
    // work (each runs in a thread of its own); then what the rest of the cases leave behind is measured.
    for (const [index, route] of ROUTES.entries()) await send(route, samplesOf[index]!.slice(0, WARM_UP_CASES));
    const rssBefore = rssOfRuntime();
    for (const [index, route] of ROUTES.entries()) await send(route, samplesOf[index]!.slice(WARM_UP_CASES));
    expect(failures.slice(0, 20), `seed ${SEED}`).toEqual([]);
    expect(answered).toBeGreaterThanOrEqual(10_000);
    // The runtime (the vitest process that hosts the local stack and a thread per function, each
    // held to its template's memory) stays bounded: what the rest of the cases leave behind is at
    // most a few heap pages per function's thread, not a growth with the requests.
    expect(rssOfRuntime() - rssBefore).toBeLessThan((RUNTIME_GROWTH_MB + ROUTES.length * GROWTH_PER_FUNCTION_MB) * 1024 * 1024);
  });
});
