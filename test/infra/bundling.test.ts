/**
 * What the deployed bundles hold, built with the settings CDK bundles every function with
 * (infra/bundling.ts): the module replacements must be in effect, or a function would deploy
 * with code its tests never ran beside the shim's (test/unit/http/idempotency-jmespath.test.ts);
 * and no function carries what only the local runtime and the benchmarks use.
 */

import { join } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.ts';
import { WORKERS } from '#functions/workers.ts';
import { functionBuildOptions } from '#infra/bundling.ts';
import { repoRoot } from '../support/paths.ts';

const bundle = (handler: string) =>
  build({ ...functionBuildOptions(), entryPoints: [join(repoRoot, handler)], absWorkingDir: repoRoot, write: false, metafile: true });

const HANDLERS = [...ROUTES.map((r) => r.handler), ...Object.values(WORKERS).map((w) => w.handler)];
const bundles = new Map<string, Awaited<ReturnType<typeof bundle>>>();
beforeAll(async () => {
  for (const handler of HANDLERS) bundles.set(handler, await bundle(handler));
}, 60_000);

describe('every function bundle', () => {
  // The builtins' shims (infra/node-builtins) export only the names in use: an import of another
  // fails the build, and a namespace's read of a name a shim lacks is esbuild's warning (unless
  // the read is a `typeof` test, which esbuild leaves silent: why node:zlib has no shim).
  it('builds with the deployed settings, without a warning', () => {
    const warnings = HANDLERS.flatMap((handler) => bundles.get(handler)!.warnings.map((warning) => `${handler}: ${warning.text}`));
    expect(warnings).toEqual([]);
  });
});

describe('a mutation function bundle', () => {
  const inputs = () => Object.keys(bundles.get(ROUTES.find((r) => r.operationId === 'createOrder')!.handler)!.metafile.inputs);

  it("evaluates Powertools idempotency's JMESPath with the shim, and holds none of Powertools' interpreter", () => {
    expect(inputs().some((path) => path.includes('@aws-lambda-powertools/idempotency/'))).toBe(true);
    expect(inputs()).toContain('infra/powertools-jmespath.ts');
    expect(inputs().filter((path) => path.includes('@aws-lambda-powertools/jmespath/'))).toEqual([]);
  });

  it("holds neither the benchmarks' capacity meter nor the local runtime", () => {
    expect(inputs().filter((path) => path.startsWith('local/'))).toEqual([]);
  });
});
