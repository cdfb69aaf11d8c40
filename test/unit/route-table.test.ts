import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.ts';
import { pathPattern } from '#shared/api/routes.ts';
import { repoRoot } from '../support/paths.ts';

describe('the route table', () => {
  it('holds the 25 endpoints of spec section 4 plus GET /orders, GET /webhook-deliveries/{deliveryId}, POST /webhook-deliveries/recover and the two listen-session operations, each once', () => {
    expect(ROUTES).toHaveLength(30);
    expect(new Set(ROUTES.map((r) => `${r.method} ${r.path}`)).size).toBe(30);
    expect(new Set(ROUTES.map((r) => r.operationId)).size).toBe(30);
  });

  it('names an existing handler module for every route', () => {
    for (const route of ROUTES) expect(existsSync(join(repoRoot, route.handler)), route.handler).toBe(true);
  });

  it('matches concrete paths to templates', () => {
    expect(pathPattern('/orders/{externalOrderId}/cancel').exec('/orders/o-1/cancel')?.groups).toEqual({ externalOrderId: 'o-1' });
    expect(pathPattern('/orders/{externalOrderId}').test('/orders/o-1/cancel')).toBe(false);
  });

  it('is the only list of routes in the source tree', () => {
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        // test/, bench/, client/ and examples/ are clients of the API: they call paths (the client's
        // types are generated from the contract), they do not define routes.
        if (['node_modules', '.git', 'cdk.out', '.local', 'test', 'bench', 'client', 'examples'].includes(name)) continue;
        const full = join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (full.endsWith('.ts')) sources.push(full);
      }
    };
    walk(repoRoot);
    const offenders = sources.filter((file) => {
      if (relative(repoRoot, file) === 'functions/routes.ts') return false;
      const text = readFileSync(file, 'utf8');
      return ROUTES.some((r) => text.includes(`'${r.path}'`) || text.includes(`"${r.path}"`));
    });
    expect(offenders.map((f) => relative(repoRoot, f))).toEqual([]);
  });
});
