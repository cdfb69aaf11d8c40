import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE, renderOpenApi } from '#contract/generate.ts';
import { ROUTES } from '#functions/routes.ts';
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

  it('passes redocly lint', () => {
    const bin = join(repoRoot, 'node_modules', '.bin', 'redocly');
    const out = execFileSync(bin, ['lint', OPENAPI_FILE, '--format=summary'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).not.toMatch(/error/i);
  }, 60_000);
});
