/**
 * `npm start` as a developer uses it: it serves a request signed with the key it writes to
 * credentials.json, keeps its data for the next start, and leaves no Java process behind
 * however it is stopped (Ctrl-C on the terminal's process group, or SIGKILL of the runtime).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { type BenchKey, send } from '#bench/lib/client.ts';
import { freePort } from '#local/processes.ts';
import { eventually } from '../support/eventually.ts';
import { repoRoot } from '../support/paths.ts';
import { descendants, exited, killRuntime, startRuntime, waitUntilGone } from '../support/runtime.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'commerce-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const credentials = (): BenchKey => {
  const file = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
  return { tenant: 'sandbox', keyId: file.key_id, secret: file.secret };
};

const dynamoDbLocal = (processes: { pid: number; command: string }[]) =>
  processes.filter((p) => p.command.startsWith('java ') && p.command.includes('DynamoDBLocal.jar'));

describe('npm start', () => {
  it('serves GET /capabilities signed with the written credentials, and Ctrl-C stops every process it started', async () => {
    const env = { PORT: String(await freePort()), LOCAL_DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'ERROR' };
    const runtime = await startRuntime(env, { viaNpm: true });
    const processes = descendants(runtime.child.pid!);
    try {
      expect(dynamoDbLocal(processes)).toHaveLength(1);
      const key = credentials();
      const capabilities = await send(runtime.baseUrl, key, 'GET', '/capabilities');
      expect(capabilities.status).toBe(200);
      const contract = JSON.parse(readFileSync(join(repoRoot, 'contract/openapi.json'), 'utf8'));
      expect(capabilities.body.contract_version).toBe(contract.info.version);

      const product = {
        external_product_id: 'kept',
        title: 'Kept across restarts',
        source_version: '1',
        variants: [{ external_variant_id: 'kept-v', price: '2.50', currency: 'EUR' }],
      };
      expect((await send(runtime.baseUrl, key, 'POST', '/products/batch', { products: [product] })).body.accepted).toBe(1);
    } finally {
      // Ctrl-C: the terminal sends SIGINT to the whole foreground process group.
      const done = exited(runtime.child);
      process.kill(-runtime.child.pid!, 'SIGINT');
      await done;
    }
    expect(await waitUntilGone(processes.map((p) => p.pid))).toEqual([]);
    await expect(fetch(runtime.baseUrl)).rejects.toThrow();
    // The data folder is given back: the next start finds no lock.
    expect(existsSync(join(dataDir, 'npm-start.lock'))).toBe(false);
  });

  it('a second start reuses the data and the key; SIGKILL of the runtime still ends DynamoDB Local', async () => {
    const keyBefore = credentials();
    const env = { PORT: String(await freePort()), LOCAL_DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'ERROR' };
    const runtime = await startRuntime(env);
    const java = dynamoDbLocal(descendants(runtime.child.pid!));
    try {
      expect(java).toHaveLength(1);
      expect(credentials()).toEqual(keyBefore);
      const kept = await send(runtime.baseUrl, keyBefore, 'GET', '/products/kept');
      expect(kept.status).toBe(200);
      expect(kept.body.title).toBe('Kept across restarts');
      // One signed request from the shell with the credentials npm start wrote: status, request id, body.
      const run = promisify(execFile);
      const sandbox = (...args: string[]) =>
        run('node_modules/.bin/node', ['local/sandbox.ts', ...args], { cwd: repoRoot, env: { ...process.env, LOCAL_DATA_DIR: dataDir } });
      const got = await sandbox('request', 'GET', '/products/kept');
      expect(got.stdout).toMatch(/^200 OK {2}request [0-9a-f-]{36}\n/);
      expect(JSON.parse(got.stdout.slice(got.stdout.indexOf('\n') + 1))).toMatchObject({ external_product_id: 'kept', title: 'Kept across restarts' });
      const missing = await sandbox('request', 'GET', '/orders/none').catch((error: { code: number; stdout: string }) => error);
      expect(missing).toMatchObject({ code: 1, stdout: expect.stringMatching(/^404 Not Found {2}request \S+\n[\s\S]*"code": "resource_not_found"/) });
      // test-event with neither a subscription nor a running listen: the answer says what to do (with `listen` running it succeeds: the quickstart test).
      const test = await sandbox('trigger', 'test-event').catch((error: { code: number; stderr: string }) => error);
      expect(test).toMatchObject({
        code: 2,
        stderr: expect.stringContaining(
          'test-event needs a webhook subscription or a running listen: PUT /webhook-subscription with your receiver, or run `npm run sandbox -- listen',
        ),
      });
    } finally {
      // No handler runs on SIGKILL: the watchdog around Java must notice its parent is gone.
      await killRuntime(runtime.child);
    }
    expect(await waitUntilGone(java.map((p) => p.pid))).toEqual([]);
    // The killed run's lock is left behind, naming a process that has ended: the next start takes the folder over.
    expect(JSON.parse(readFileSync(join(dataDir, 'npm-start.lock'), 'utf8')).pid).toBe(runtime.child.pid);
    const again = await startRuntime(env);
    await killRuntime(again.child);
  });

  it('runs from a checkout whose path holds a space', async () => {
    // The repository seen through a path with a space; Node keeps that path for every module it loads.
    const root = join(mkdtempSync(join(tmpdir(), 'commerce-space-')), 'my checkout');
    symlinkSync(repoRoot, root);
    const spacedData = mkdtempSync(join(tmpdir(), 'commerce-space-data-'));
    const env = { PORT: String(await freePort()), LOCAL_DATA_DIR: spacedData, POWERTOOLS_LOG_LEVEL: 'ERROR' };
    const runtime = await startRuntime(env, { root, nodeArgs: ['--preserve-symlinks', '--preserve-symlinks-main'] });
    try {
      const file = JSON.parse(readFileSync(join(spacedData, 'credentials.json'), 'utf8'));
      const res = await send(runtime.baseUrl, { tenant: 'sandbox', keyId: file.key_id, secret: file.secret }, 'GET', '/capabilities');
      expect(res.status).toBe(200);
    } finally {
      await killRuntime(runtime.child);
      rmSync(spacedData, { recursive: true, force: true });
    }
  });

  it('starts on new data when the first answer of every DynamoDB write is lost after the write (LOCAL_FAULTS=dynamodb-lost:1), and serves writes', async () => {
    const lossyData = mkdtempSync(join(tmpdir(), 'commerce-lossy-data-'));
    const env = { PORT: String(await freePort()), LOCAL_DATA_DIR: lossyData, POWERTOOLS_LOG_LEVEL: 'ERROR', LOCAL_FAULTS: 'dynamodb-lost:1' };
    const runtime = await startRuntime(env);
    try {
      const file = JSON.parse(readFileSync(join(lossyData, 'credentials.json'), 'utf8'));
      const key = { tenant: 'sandbox', keyId: file.key_id, secret: file.secret };
      expect((await send(runtime.baseUrl, key, 'GET', '/capabilities')).status).toBe(200);
      const customer = {
        phone: '+4915112345670',
        locale: 'de-DE',
        consent: { status: 'granted', proof: { source: 'checkout', reference: 'p-1', collected_at: '2026-01-01T00:00:00Z' } },
        source_version: '1',
      };
      const created = await send(runtime.baseUrl, key, 'PUT', '/customers/lossy-1', customer);
      expect([created.status, created.body.outcome]).toEqual([200, 'upserted']);
      const faults = await eventually(
        () => JSON.parse(readFileSync(join(lossyData, `faults-${runtime.child.pid}.json`), 'utf8')) as Record<string, number>,
        (counted) => (counted['dynamodb:first answer of a write lost'] ?? 0) > 0,
      ).catch(() => ({}));
      expect(faults['dynamodb:first answer of a write lost' as never]).toBeGreaterThan(0);
    } finally {
      await killRuntime(runtime.child);
      rmSync(lossyData, { recursive: true, force: true });
    }
  });
});
