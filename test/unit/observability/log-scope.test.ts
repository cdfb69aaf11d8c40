/**
 * Each request's log keys (request id, tenant, route, correlation id) stay on its own lines. A
 * function instance handling one request at a time keeps them without Node's promise hooks,
 * which an AsyncLocalStorage switches on for every later promise of the process; a process
 * handling requests side by side (Lambda with several invocations per instance, the local
 * runtime) keeps them per async context. Each probe is a fresh process, as a function instance is.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/paths.ts';

/** Two requests, sequential or interleaved at every await; prints their log lines and whether promises were tracked. */
const PROBE = `
import { executionAsyncId } from 'node:async_hooks';
const { appendLogKeys, logger, scopeLogKeysPerAsyncContext, withLogScope } = await import('#shared/logging/logger.ts');
if (process.env.PROBE_LOCAL_RUNTIME) scopeLogKeysPerAsyncContext();
const tick = () => new Promise((resolve) => setImmediate(resolve));
const request = (id) => withLogScope(async () => {
  appendLogKeys({ request_id: id });
  await tick();
  logger.info('checked', { step: 1 });
  await tick();
  appendLogKeys({ tenant: 'tenant-' + id });
  await tick();
  logger.info('answered', { step: 2 });
});
// With several invocations per instance, Lambda's runtime runs each in its own context of AWS's
// per-invocation store, which Powertools reads; the probe does what the runtime does.
let invocation = (id) => request(id);
if (process.env.AWS_LAMBDA_MAX_CONCURRENCY) {
  const { InvokeStore } = await import('@aws/lambda-invoke-store');
  const store = await InvokeStore.getInstanceAsync();
  invocation = (id) => store.run({ [Symbol.for('_AWS_LAMBDA_REQUEST_ID')]: id }, () => request(id));
}
if (process.env.PROBE_SIDE_BY_SIDE) await Promise.all([invocation('a'), invocation('b')]);
else { await invocation('a'); await invocation('b'); }
// Without promise hooks, a promise's continuation gets no async id of its own.
const ids = new Set();
for (let i = 0; i < 3; i++) { await Promise.resolve(); ids.add(executionAsyncId()); }
console.log(JSON.stringify({ promisesTracked: ids.size > 1 }));
`;

interface LogLine {
  message: string;
  step: number;
  request_id?: string;
  tenant?: string;
}

function probe(env: Record<string, string>) {
  const out = execFileSync(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', PROBE], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { PATH: process.env.PATH!, POWERTOOLS_LOG_LEVEL: 'INFO', AWS_REGION: 'us-east-1', ...env },
  });
  const lines = out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const logs = lines.filter((line) => 'message' in line) as unknown as LogLine[];
  const keysOf = (id: string) => logs.filter((l) => l.request_id === id).map((l) => ({ step: l.step, tenant: l.tenant }));
  return { a: keysOf('a'), b: keysOf('b'), lines: logs.length, promisesTracked: (lines.at(-1) as { promisesTracked: boolean }).promisesTracked };
}

const ownKeys = (id: string) => [
  { step: 1, tenant: undefined },
  { step: 2, tenant: `tenant-${id}` },
];

describe('log keys per request', () => {
  it('one request at a time (a Lambda instance): each request logs its own keys, and no promise is tracked', () => {
    const run = probe({});
    expect(run).toEqual({ a: ownKeys('a'), b: ownKeys('b'), lines: 4, promisesTracked: false });
  }, 30_000);

  it('several invocations per instance (AWS_LAMBDA_MAX_CONCURRENCY): interleaved requests never lend each other their keys', () => {
    const run = probe({ AWS_LAMBDA_MAX_CONCURRENCY: '8', PROBE_SIDE_BY_SIDE: '1' });
    expect(run).toEqual({ a: ownKeys('a'), b: ownKeys('b'), lines: 4, promisesTracked: true });
  }, 30_000);

  it('the local runtime, which runs every handler in one process, keeps interleaved requests apart too', () => {
    const run = probe({ PROBE_LOCAL_RUNTIME: '1', PROBE_SIDE_BY_SIDE: '1' });
    expect(run).toEqual({ a: ownKeys('a'), b: ownKeys('b'), lines: 4, promisesTracked: true });
  }, 30_000);
});
