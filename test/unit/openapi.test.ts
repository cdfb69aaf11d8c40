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

  it('passes redocly lint', () => {
    const bin = join(repoRoot, 'node_modules', '.bin', 'redocly');
    const out = execFileSync(bin, ['lint', OPENAPI_FILE, '--format=summary'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).not.toMatch(/error/i);
  }, 60_000);
});
