import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE, renderOpenApi } from '#contract/generate.ts';
import { ROUTES } from '#functions/routes.ts';
import { EVENT_TYPES } from '#shared/events/event-types.ts';
import { repoRoot } from '../support/paths.ts';

describe('the OpenAPI contract', () => {
  it('is up to date with the route table and schemas (run `npm run contract` when this fails)', async () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(await renderOpenApi());
  });

  it('documents every route with its scope and the problem responses', () => {
    const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
    for (const route of ROUTES) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      expect(op.operationId).toBe(route.operationId);
      expect(op['x-required-scope']).toBe(route.scope);
      expect(op.responses['401'].content['application/problem+json']).toBeDefined();
    }
  });

  it('lists every problem code each operation can answer: authentication, 405, 413, 415, 429, 503, and 409 stale_source_version on versioned writes', () => {
    const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
    const versioned = new Set(['putCustomer', 'putSalesRule', 'createOrder', 'updateOrder', 'cancelOrder']);
    for (const route of ROUTES) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      const codes = Object.entries(op.responses as Record<string, { description: string }>)
        .filter(([status]) => Number(status) >= 400)
        .flatMap(([, r]) => r.description.split(', '));
      for (const code of [
        'invalid_signature',
        'expired_timestamp',
        'replay_nonce',
        'method_not_allowed',
        'payload_too_large',
        'unsupported_media_type',
        'rate_limited',
        'tenant_unavailable',
      ]) {
        expect(codes, `${route.operationId} lists ${code}`).toContain(code);
      }
      expect(codes.includes('stale_source_version'), `${route.operationId} and stale_source_version`).toBe(versioned.has(route.operationId));
    }
  });

  it('gives the partner client its types: client/src/schema.ts is what openapi-typescript makes of the committed contract', () => {
    const bin = join(repoRoot, 'client', 'node_modules', '.bin', 'openapi-typescript');
    const generated = execFileSync(bin, [OPENAPI_FILE, '--default-non-nullable', 'false'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(generated).toBe(readFileSync(join(repoRoot, 'client', 'src', 'schema.ts'), 'utf8'));
  }, 60_000);

  it('has a webhooks section with every event type, and no signing header for a caller to pass', () => {
    const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES]);
    for (const type of EVENT_TYPES) {
      const schema = doc.webhooks[type].post.requestBody.content['application/json'].schema;
      expect(schema.$ref, type).toMatch(/^#\/components\/schemas\/\w+Event$/);
    }
    const headerParameters = Object.values(doc.paths as Record<string, Record<string, { parameters: { $ref?: string; in?: string; name?: string }[] }>>)
      .flatMap((ops) => Object.values(ops))
      .flatMap((op) => op.parameters)
      .map((p) => p.$ref ?? `${p.in}:${p.name}`)
      .filter((p) => /X-SVC/i.test(p));
    expect(headerParameters).toEqual([]);
    expect(doc.components.securitySchemes.hmac.description).toContain('string to sign');
  });

  it('passes redocly lint', () => {
    const bin = join(repoRoot, 'node_modules', '.bin', 'redocly');
    const out = execFileSync(bin, ['lint', OPENAPI_FILE, '--format=summary'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    expect(out).not.toMatch(/error/i);
  }, 60_000);
});
