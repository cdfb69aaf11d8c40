/**
 * The architecture's rules, read from the imports of every source file:
 * - `shared/` (domain and adapters) never imports an entry point: functions/, local/, infra/, bench/, contract/, test/;
 * - `functions/` (the Lambda entry points and their composition roots) never imports local/ or infra/;
 * - the pure domain modules never reach the AWS SDK, not even through another module.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/paths.ts';

const PURE_DOMAIN = [
  'shared/orders/order.ts',
  'shared/orders/processing.ts',
  'shared/orders/call-outcome.ts',
  'shared/orders/reactions.ts',
  'shared/orders/qualification.ts',
  'shared/orders/scheduler.ts',
  'shared/orders/snapshot.ts',
  'shared/orders/state-machine.ts',
  'shared/rules/applicable-rules.ts',
  'shared/money/decimal.ts',
  'shared/versioning/source-version.ts',
  'shared/errors.ts',
  'shared/auth/authenticate.ts',
  'shared/auth/signing.ts',
  'shared/webhooks/health.ts',
  'shared/webhooks/retry-schedule.ts',
  'shared/webhooks/signature.ts',
  'shared/http/problem.ts',
  'shared/http/middleware/request-scope.ts',
  'shared/http/middleware/problem-json.ts',
  'shared/http/middleware/request-limits.ts',
  'shared/http/middleware/hmac-authorizer.ts',
  'shared/http/middleware/require-scope.ts',
  'shared/http/middleware/tenant-gate.ts',
  'shared/http/middleware/validation.ts',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(repoRoot, path)).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The modules a file loads at run time (type-only imports erase), as repository paths or package names. */
function runtimeImports(file: string, text = readFileSync(join(repoRoot, file), 'utf8')): string[] {
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
  specifiers.push(...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!));
  return specifiers.map((spec) => {
    if (spec.startsWith('#client/')) return `client/src/${spec.slice('#client/'.length)}`;
    if (spec.startsWith('#')) return spec.slice(1);
    if (spec.startsWith('.')) return relative(repoRoot, resolve(repoRoot, dirname(file), spec));
    return spec;
  });
}

const topFolder = (path: string) => path.split('/')[0]!;

function reachesAwsSdk(file: string, seen = new Set<string>()): string | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  for (const target of runtimeImports(file)) {
    if (target.startsWith('@aws-sdk/')) return `${file} → ${target}`;
    if (target.endsWith('.ts')) {
      const path = reachesAwsSdk(target, seen);
      if (path) return `${file} → ${path}`;
    }
  }
  return undefined;
}

describe('the architecture', () => {
  it('keeps shared/ free of entry points: nothing in it imports functions/, local/, infra/, bench/, contract/ or test/', () => {
    const offenders = sourceFiles('shared').flatMap((file) =>
      runtimeImports(file)
        .filter((t) => ['functions', 'local', 'infra', 'bench', 'contract', 'test'].includes(topFolder(t)))
        .map((t) => `${file} → ${t}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps functions/ free of the local runtime and the CDK app', () => {
    const offenders = sourceFiles('functions').flatMap((file) =>
      runtimeImports(file)
        .filter((t) => ['local', 'infra'].includes(topFolder(t)) || t.startsWith('aws-cdk-lib'))
        .map((t) => `${file} → ${t}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps the partner client standalone: it loads nothing but Node built-ins, openapi-fetch and its own files', () => {
    const offenders = sourceFiles('client/src').flatMap((file) =>
      runtimeImports(file)
        .filter((t) => !t.startsWith('node:') && t !== 'openapi-fetch' && !t.startsWith('client/src/'))
        .map((t) => `${file} → ${t}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps the pure domain modules away from the AWS SDK, directly or through another module', () => {
    expect(PURE_DOMAIN.map((file) => reachesAwsSdk(file)).filter(Boolean)).toEqual([]);
  });

  it('sees a forbidden import when there is one (the checks are not vacuous)', () => {
    expect(runtimeImports('shared/x/y.ts', "import { ROUTES } from '#functions/routes.ts';\nimport type { T } from '../z.ts';")).toEqual([
      'functions/routes.ts',
    ]);
    expect(runtimeImports('shared/x/y.ts', "import { a } from '../../local/stack.ts';")).toEqual(['local/stack.ts']);
    expect(reachesAwsSdk('shared/orders/order-store.ts')).toMatch(/@aws-sdk\//);
  });
});
