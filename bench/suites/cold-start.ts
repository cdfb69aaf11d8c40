/**
 * `cold-start`: every function bundle the CDK app produces, built the same way (esbuild,
 * infra/bundling.ts), in both ways of shipping the AWS SDK: bundled and tree-shaken, or left
 * to the Lambda runtime's copy. Per bundle: size, and module initialisation (a fresh Node 22
 * process importing the bundle, which constructs its handler), median of 15, against the
 * floor of a bundle holding only a trivial handler and the same AWS SDK clients.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ROUTES } from '#functions/routes.ts';
import { WORKERS } from '#functions/workers.ts';
import { BUNDLE_OPTIONS, TRACING_MODULES } from '#infra/bundling.ts';
import { figure, type Figure } from '../lib/figures.ts';
import { median, progress } from '../lib/measure.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = join(root, 'bench/.build');
const RUNS = 15;
const SIZE_TARGET_KIB = 500;

const FLOOR_SOURCE = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const queue = new SQSClient({ region: 'us-east-1' });
export const handler = async () => ({ statusCode: 200, body: String(Boolean(documents && queue)) });
`;

async function bundle(entry: string, outfile: string, sdk: 'bundled' | 'runtime') {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    minify: BUNDLE_OPTIONS.minify,
    format: BUNDLE_OPTIONS.format,
    target: BUNDLE_OPTIONS.target,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    banner: { js: BUNDLE_OPTIONS.banner },
    alias: { ...BUNDLE_OPTIONS.alias },
    // As deployed by default: the tracer only when the stack traces AWS calls.
    external: [...(sdk === 'runtime' ? ['@aws-sdk/*', '@smithy/*'] : []), ...TRACING_MODULES],
    logLevel: 'silent',
  });
  return statSync(outfile).size / 1024;
}

/** A fresh process per run: import the bundle (which builds its handler), report the time. */
function initMillis(file: string): number {
  const env = { ...process.env, TABLE_NAME: 'bench', AWS_REGION: 'us-east-1', POWERTOOLS_LOG_LEVEL: 'ERROR' };
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const output = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const t = performance.now(); const m = await import(${JSON.stringify(file)}); if (typeof m.handler !== 'function') throw new Error('no handler'); console.log(performance.now() - t);`,
      ],
      { env, encoding: 'utf8' },
    );
    times.push(Number(output.trim()));
  }
  return median(times);
}

interface Entry {
  name: string;
  handler: string;
}

/** One function's bundle size and initialisation, beside the floor of a trivial handler. */
async function measureEntry(entry: Entry, sdk: 'bundled' | 'runtime', floor: { init: number; size: number }) {
  const file = join(out, sdk, `${entry.name}.mjs`);
  const size = await bundle(join(root, entry.handler), file, sdk);
  const init = initMillis(file);
  progress(`  ${entry.name}: ${size.toFixed(0)} KiB, ${init.toFixed(1)} ms`);
  const figures = [
    figure({
      suite: 'cold-start',
      name: `${entry.name} (SDK ${sdk}): bundle size`,
      value: size,
      unit: 'KiB',
      floor: { value: SIZE_TARGET_KIB, label: 'the 500 KiB target' },
      target: { ratio: 1, direction: 'at_most' },
    }),
    figure({
      suite: 'cold-start',
      name: `${entry.name} (SDK ${sdk}): initialisation`,
      value: init,
      unit: 'ms',
      floor: { value: floor.init, label: `trivial handler + the same SDK clients (${floor.size.toFixed(0)} KiB)` },
      target: { ratio: 1.25, direction: 'at_most' },
    }),
  ];
  return { size, ratio: init / floor.init, figures };
}

async function measureSdkMode(sdk: 'bundled' | 'runtime', entries: readonly Entry[], floorEntry: string): Promise<Figure[]> {
  progress(`cold start, SDK ${sdk}: floor`);
  const floorFile = join(out, sdk, 'floor.mjs');
  const floor = { size: await bundle(floorEntry, floorFile, sdk), init: initMillis(floorFile) };
  const measured = [];
  for (const entry of entries) measured.push(await measureEntry(entry, sdk, floor));
  return [
    ...measured.flatMap((m) => m.figures),
    figure({
      suite: 'cold-start',
      name: `largest bundle (SDK ${sdk})`,
      value: Math.max(...measured.map((m) => m.size)),
      unit: 'KiB',
      floor: { value: SIZE_TARGET_KIB, label: 'the 500 KiB target' },
      target: { ratio: 1, direction: 'at_most' },
    }),
    figure({
      suite: 'cold-start',
      name: `worst initialisation ratio (SDK ${sdk})`,
      value: Math.max(...measured.map((m) => m.ratio)),
      unit: '× floor',
      note: `median over ${RUNS} fresh processes each; on this machine, not on Lambda`,
    }),
  ];
}

export async function run(): Promise<Figure[]> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const floorEntry = join(out, 'floor.ts');
  writeFileSync(floorEntry, FLOOR_SOURCE);
  const entries = [
    ...ROUTES.map((r) => ({ name: r.operationId, handler: r.handler })),
    ...Object.values(WORKERS).map((w) => ({ name: w.name, handler: w.handler })),
  ];
  const figures = [...(await measureSdkMode('bundled', entries, floorEntry)), ...(await measureSdkMode('runtime', entries, floorEntry))];
  rmSync(out, { recursive: true, force: true });
  return figures;
}
