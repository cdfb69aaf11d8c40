/**
 * What the deployed bundles hold, built with the settings CDK bundles every function with
 * (infra/bundling.ts): the module replacements must be in effect, or a function would deploy
 * with code its tests never ran beside the shim's (test/unit/http/idempotency-jmespath.test.ts);
 * and no function carries what only the local runtime and the benchmarks use.
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.ts';
import { functionBuildOptions } from '#infra/bundling.ts';
import { repoRoot } from '../support/paths.ts';

async function bundledInputs(operationId: string): Promise<string[]> {
  const route = ROUTES.find((r) => r.operationId === operationId)!;
  const result = await build({
    ...functionBuildOptions(),
    entryPoints: [join(repoRoot, route.handler)],
    absWorkingDir: repoRoot,
    write: false,
    metafile: true,
  });
  return Object.keys(result.metafile.inputs);
}

describe('a mutation function bundle', () => {
  let inputs: string[];
  beforeAll(async () => {
    inputs = await bundledInputs('createOrder');
  });

  it("evaluates Powertools idempotency's JMESPath with the shim, and holds none of Powertools' interpreter", () => {
    expect(inputs.some((path) => path.includes('@aws-lambda-powertools/idempotency/'))).toBe(true);
    expect(inputs).toContain('infra/powertools-jmespath.ts');
    expect(inputs.filter((path) => path.includes('@aws-lambda-powertools/jmespath/'))).toEqual([]);
  });

  it("holds neither the benchmarks' capacity meter nor the local runtime", () => {
    expect(inputs.filter((path) => path === 'shared/storage/capacity-meter.ts' || path === 'shared/storage/billing.ts' || path.startsWith('local/'))).toEqual(
      [],
    );
  });
});
