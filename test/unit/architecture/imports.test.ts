/**
 * The architecture's rules, read from the imports of every source file:
 * - `shared/` (domain and adapters) never imports an entry point: functions/, local/, infra/, bench/, contract/, test/;
 * - inside `shared/`, a folder imports only folders on floors below its own (SHARED_FLOORS), type-only
 *   imports included: no floor holds two folders that import each other;
 * - no module reaches itself through a circle of imports, type-only imports included;
 * - only the modules AWS_ADAPTERS names load an AWS SDK client;
 * - `functions/` (the Lambda entry points and their composition roots) never imports local/ or infra/;
 * - the local runtime and the benchmarks (local/, bench/) are imported only by each other and the tests:
 *   the contract, the CDK app, the client and the examples never reach them;
 * - the pure domain modules never reach the AWS SDK, not even through another module.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/paths.ts';

/**
 * The floors of `shared/`, lowest first. A folder imports only folders on lower floors, so two
 * folders of one floor never import each other: foundations and outbound HTTP, the API's
 * vocabulary and the logger, storage, then tenants, the stream and the queue; the call platforms,
 * keys, rules and reaction jobs; the request pipeline, events and customers; the catalog; orders;
 * what reacts to orders (the store write-back, webhooks); and discovery, which describes all of
 * them. `(root)` is `shared/errors.ts`.
 */
const SHARED_FLOORS: readonly (readonly string[])[] = [
  ['(root)', 'money', 'async', 'caching', 'config', 'versioning', 'observability', 'outbound'],
  ['api', 'logging'],
  ['storage'],
  ['tenants', 'stream', 'queue'],
  ['auth', 'calls', 'jobs', 'rules'],
  ['http', 'events', 'customers'],
  ['catalog'],
  ['orders'],
  ['writeback', 'webhooks'],
  ['discovery'],
];

/** The modules of `shared/` that load an AWS SDK client: the store modules and the queue and key adapters. */
const AWS_ADAPTERS = [
  'shared/auth/api-keys.ts',
  'shared/auth/key-secret-deriver.ts',
  'shared/auth/key-secrets.ts',
  'shared/calls/connect/connect-platform.ts',
  'shared/calls/call-slots.ts',
  'shared/calls/connect/contact-store.ts',
  'shared/calls/dial-rate.ts',
  'shared/catalog/product-store.ts',
  'shared/customers/customer-store.ts',
  'shared/orders/call-history.ts',
  'shared/orders/order-records.ts',
  'shared/orders/order-store.ts',
  'shared/queue/dead-letters.ts',
  'shared/queue/redelivery.ts',
  'shared/queue/stream-failures.ts',
  'shared/queue/webhook-queue.ts',
  'shared/rules/rule-store.ts',
  'shared/storage/batch.ts',
  'shared/storage/clients.ts',
  'shared/storage/conditional.ts',
  'shared/storage/due-index.ts',
  'shared/storage/pagination.ts',
  'shared/storage/tombstone.ts',
  'shared/tenants/config-writer.ts',
  'shared/tenants/store.ts',
  'shared/webhooks/delivery-ops.ts',
  'shared/webhooks/delivery-store.ts',
  'shared/webhooks/listen-sessions.ts',
  'shared/webhooks/subscription-store.ts',
  'shared/writeback/writeback-secret.ts',
];

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
  'shared/outbound/signature.ts',
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

const toPath = (file: string, spec: string) => {
  if (spec.startsWith('#client/')) return `client/src/${spec.slice('#client/'.length)}`;
  if (spec.startsWith('#')) return spec.slice(1);
  if (spec.startsWith('.')) return relative(repoRoot, resolve(repoRoot, dirname(file), spec));
  return spec;
};

/** The modules a file loads at run time (type-only imports erase), as repository paths or package names. */
function runtimeImports(file: string, text = readFileSync(join(repoRoot, file), 'utf8')): string[] {
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
  specifiers.push(...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!));
  return specifiers.map((spec) => toPath(file, spec));
}

/** Every module a file imports, type-only imports included. */
function allImports(file: string, text = readFileSync(join(repoRoot, file), 'utf8')): string[] {
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\s+(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
  specifiers.push(...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!));
  return specifiers.map((spec) => toPath(file, spec));
}

/** The folder of `shared/` a path is in, `(root)` for a file directly in it. */
const sharedFolder = (path: string) => (path.split('/').length > 2 ? path.split('/')[1]! : '(root)');
const floorOf = (folder: string) => SHARED_FLOORS.findIndex((floor) => floor.includes(folder));

/** The imports of `shared/` files that reach another folder on their own floor or a higher one (or a folder with no floor). */
function climbingImports(files: string[], imports: (file: string) => string[]): string[] {
  return files.flatMap((file) =>
    imports(file)
      .filter((t) => t.startsWith('shared/') && t.endsWith('.ts') && sharedFolder(t) !== sharedFolder(file))
      .filter((t) => floorOf(sharedFolder(t)) < 0 || floorOf(sharedFolder(file)) < 0 || floorOf(sharedFolder(t)) >= floorOf(sharedFolder(file)))
      .map((t) => `${file} → ${t}`),
  );
}

/** Every circle of imports among the given files, each as the modules it passes through. */
function importCircles(files: string[], imports: (file: string) => string[]): string[][] {
  const graph = new Map(files.map((f) => [f, imports(f).filter((t) => t.endsWith('.ts'))]));
  const circles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next) && graph.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return circles;
}

const loadsAwsClient = (file: string) => runtimeImports(file).some((t) => t.startsWith('@aws-sdk/client-') || t === '@aws-sdk/lib-dynamodb');

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

  it('keeps every import inside shared/ on a lower floor, type-only imports included', () => {
    expect(SHARED_FLOORS.flat().sort()).toEqual([...new Set(sourceFiles('shared').map(sharedFolder))].sort());
    expect(climbingImports(sourceFiles('shared'), (file) => allImports(file))).toEqual([]);
  });

  it('has no circle of imports anywhere in the repository, type-only imports included', () => {
    const files = ['shared', 'functions', 'local', 'infra', 'bench', 'contract', 'test', 'client/src', 'examples'].flatMap(sourceFiles);
    expect(importCircles(files, (file) => allImports(file))).toEqual([]);
  });

  it('lets only the named adapters load an AWS SDK client', () => {
    expect(sourceFiles('shared').filter(loadsAwsClient).sort()).toEqual([...AWS_ADAPTERS].sort());
  });

  it('sees a climbing import and a circle when there is one', () => {
    const planted: Record<string, string> = {
      'shared/storage/planted.ts': "import { submitOrder } from '../orders/order-commands.ts';",
      // A floor's neighbour is no lower: calls and rules share a floor, so neither may import the other.
      'shared/calls/planted.ts': "import type { SalesRule } from '../rules/rule-schemas.ts';",
      'shared/orders/a.ts': "import type { B } from './b.ts';",
      'shared/orders/b.ts': "import { a } from './a.ts';",
    };
    const imports = (file: string) => allImports(file, planted[file]!);
    expect(climbingImports(Object.keys(planted), imports)).toEqual([
      'shared/storage/planted.ts → shared/orders/order-commands.ts',
      'shared/calls/planted.ts → shared/rules/rule-schemas.ts',
    ]);
    expect(importCircles(Object.keys(planted), imports)).toEqual([['shared/orders/a.ts', 'shared/orders/b.ts', 'shared/orders/a.ts']]);
  });

  it('keeps functions/ free of the local runtime and the CDK app', () => {
    const offenders = sourceFiles('functions').flatMap((file) =>
      runtimeImports(file)
        .filter((t) => ['local', 'infra'].includes(topFolder(t)) || t.startsWith('aws-cdk-lib'))
        .map((t) => `${file} → ${t}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps local/ and bench/ to themselves and the tests: the contract, the CDK app, the client and the examples never import them', () => {
    const offenders = ['shared', 'functions', 'infra', 'contract', 'client/src', 'examples'].flatMap(sourceFiles).flatMap((file) =>
      allImports(file)
        .filter((t) => ['local', 'bench'].includes(topFolder(t)))
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
