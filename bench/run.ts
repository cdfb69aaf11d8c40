/**
 * `npm run bench [-- suite...]`: runs the named suites (all by default) against the real
 * local stack, merges their figures into bench/results/latest.json and rewrites
 * bench/REPORT.md. Benchmarks, not tests: nothing here runs in `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { captureJsonLogs } from '#local/log-capture.ts';
import type { withPipelineHeld } from '#local/pipeline-hold.ts';
import type { LocalStack } from '#local/stack.ts';
import type { Figure } from './lib/figures.ts';
import { performanceTable, withPerformanceTable } from './lib/readme-table.ts';
import { writeReport } from './report.ts';

type SuiteOutput = Figure[] | { figures: Figure[]; series: Record<string, number[]> };
/** Runs `work` with the local pipeline held (the catalog batch: its measured window without the indexer's work for it). */
type Held = typeof withPipelineHeld;
const SUITES: Record<
  string,
  {
    needsStack: boolean;
    load: () => Promise<{ run: (baseUrl: string, settled: () => Promise<number>, held: Held, stack?: LocalStack) => Promise<SuiteOutput> }>;
  }
> = {
  auth: { needsStack: false, load: () => import('./suites/auth.ts') },
  'cold-start': { needsStack: false, load: () => import('./suites/cold-start.ts') },
  catalog: { needsStack: true, load: () => import('./suites/catalog.ts') },
  orders: { needsStack: true, load: () => import('./suites/orders.ts') },
  webhooks: { needsStack: true, load: () => import('./suites/webhooks.ts') },
  load: { needsStack: true, load: () => import('./suites/load.ts') },
  cost: { needsStack: true, load: () => import('./suites/cost.ts') },
  fairness: { needsStack: true, load: () => import('./suites/fairness.ts') },
  model: { needsStack: false, load: () => import('./suites/model.ts') },
  scale: { needsStack: false, load: () => import('./suites/scale.ts') },
  'live-calls': { needsStack: true, load: () => import('./suites/live-calls.ts') },
};

const resultsFile = fileURLToPath(new URL('./results/latest.json', import.meta.url));

interface Results {
  commit: string;
  machine: { cpus: number; cpu_model: string; node: string };
  generated_at: string;
  figures: Figure[];
  series?: Record<string, number[]>;
}

/** Rewrites REPORT.md and the README's table from the figures already measured. */
function reportOnly() {
  const results: Results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  writeReport(results);
  writeReadmeTable(results);
  console.error("wrote bench/REPORT.md and README.md's performance table from bench/results/latest.json");
}

/** The suites asked for, refusing an unknown one. */
function requestedSuites(args: string[]): string[] {
  const unknown = args.filter((s) => !(s in SUITES));
  if (unknown.length) {
    console.error(`unknown suite(s): ${unknown.join(', ')}; known: ${Object.keys(SUITES).join(', ')}`);
    process.exit(2);
  }
  return args;
}

async function main() {
  const args = process.argv.slice(2).filter((a) => a !== '--');
  if (args.includes('--report-only')) return reportOnly();
  const requested = requestedSuites(args);
  // Suites that need no stack run first, so an idle DynamoDB Local and its pollers cannot disturb them.
  const suites = (requested.length ? requested : Object.keys(SUITES)).sort((a, b) => Number(SUITES[a]!.needsStack) - Number(SUITES[b]!.needsStack));
  let stack: Awaited<ReturnType<typeof import('#local/stack.ts').startLocalStack>> | undefined;
  let restoreLogs = () => {};
  // Imported only when a suite needs it: the local stack loads the CDK, whose heap alone moved the
  // micro-benchmarks' ratios (a small batch's validation 1.65 → 1.97× JSON.parse, through heavier collections).
  const stackFor = async () => {
    if (stack) return stack;
    // The functions' log lines and metric points go to a file: the terminal shows the suites' progress and figures.
    const logFile = join(mkdtempSync(join(tmpdir(), 'commerce-bench-')), 'functions.ndjson');
    restoreLogs = captureJsonLogs(logFile);
    console.error(`functions' log lines and metrics: ${logFile}`);
    stack = await (await import('#local/stack.ts')).startLocalStack({
      // With live calls through the Connect stand-in: sandbox tenants (every other suite's) still use the simulated network.
      env: {
        COST_METERING: 'true',
        CALL_RETRY_DELAY_SECONDS: '0',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        POWERTOOLS_LOG_LEVEL: 'ERROR',
        CALL_PLATFORM: 'connect',
      },
    });
    return stack;
  };
  const previous: Results | undefined = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : undefined;
  let figures = previous?.figures ?? [];
  const series: Record<string, number[]> = { ...previous?.series };
  try {
    for (const name of suites) {
      console.error(`suite ${name}`);
      let baseUrl = '';
      let settled = async () => 0;
      let held: Held = (work) => work();
      let local: Awaited<ReturnType<typeof stackFor>> | undefined;
      if (SUITES[name]!.needsStack) {
        const started = await stackFor();
        local = started;
        settled = () => started.settled();
        held = (work) => started.withPipelineHeld(work);
        // The previous suite's backlog (e.g. the catalog indexer's 50,000 variant entries) is not this suite's figure.
        console.error(`  waited ${((await settled()) / 1000).toFixed(1)} s for the pipeline to settle`);
        baseUrl = local.baseUrl;
      }
      const output = await (await SUITES[name]!.load()).run(baseUrl, settled, held, local);
      const fresh = Array.isArray(output) ? output : output.figures;
      if (!Array.isArray(output)) Object.assign(series, output.series);
      figures = [...figures.filter((f) => f.suite !== name), ...fresh];
      save(figures, series); // after every suite, so a later failure keeps what was measured
      for (const f of fresh) {
        const comparison =
          f.ratio === null
            ? ''
            : ` (floor ${f.floor} ${f.unit}, ratio ${f.ratio}${f.target === null ? '' : `, target ${f.direction === 'at_most' ? '≤' : '≥'} ${f.target}: ${f.met ? 'met' : 'NOT met'}`})`;
        console.log(`${name} | ${f.name}: ${f.value} ${f.unit}${comparison}`);
      }
    }
  } finally {
    await stack?.stop();
    restoreLogs();
  }
  save(figures, series);
  console.error(`wrote bench/results/latest.json and bench/REPORT.md`);
}

function save(figures: Figure[], series: Record<string, number[]>) {
  const results: Results = {
    commit: execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim(),
    machine: { cpus: availableParallelism(), cpu_model: cpus()[0]?.model ?? 'unknown', node: process.version },
    generated_at: new Date().toISOString(),
    figures,
    series,
  };
  mkdirSync(fileURLToPath(new URL('./results/', import.meta.url)), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  writeReport(results);
  writeReadmeTable(results);
}

function writeReadmeTable(results: Results) {
  const readme = fileURLToPath(new URL('../README.md', import.meta.url));
  writeFileSync(readme, withPerformanceTable(readFileSync(readme, 'utf8'), performanceTable(results)));
}

await main();
