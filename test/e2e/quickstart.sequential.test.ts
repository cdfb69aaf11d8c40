/**
 * The README's quickstart, command by command as the README gives them (read from it, so
 * the two cannot drift): `npm start`, `sandbox listen`, the verifying receiver, the first
 * signed requests and their result, then a triggered scenario.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCommerceClient } from '#client/index.ts';
import { eventually } from '../support/eventually.ts';
import { repoRoot } from '../support/paths.ts';
import { exited, killRuntime, type Runtime, startRuntime } from '../support/runtime.ts';

/** The shell commands of the README's quickstart, in order. */
function quickstartCommands(): string[] {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quickstart for partners'), readme.indexOf('### Sandbox scenarios'));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const dataDir = mkdtempSync(join(tmpdir(), 'quickstart-'));
const children: ChildProcess[] = [];
let runtime: Runtime | undefined;

/** A terminal: runs `command` in a shell from the repository root, collecting what it prints. */
function terminal(command: string, env: Record<string, string>) {
  const child = spawn('bash', ['-c', command], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  const out = { text: '', child };
  child.stdout!.on('data', (c: Buffer) => (out.text += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out.text += c.toString()));
  return out;
}

const until = async (read: () => string, pattern: RegExp, timeoutMs = 60_000) => {
  const text = await eventually(read, (t) => pattern.test(t), { timeoutMs, everyMs: 200 });
  if (!pattern.test(text)) throw new Error(`never printed ${pattern}:\n${text}`);
  return text.match(pattern)!;
};

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
  await Promise.all(children.map(exited));
  if (runtime) await killRuntime(runtime.child);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the README quickstart', () => {
  it('gets from npm start to a verified webhook and a read result, with the README’s own commands', async () => {
    const [start, listen, receive, firstOrder, trigger] = quickstartCommands();
    expect(start).toBe('npm ci && npm start');
    const apiPort = await freePort();
    const hookPort = await freePort();
    const env = { LOCAL_DATA_DIR: dataDir, PORT: String(apiPort) };
    // `npm ci` has run already (this is its test run); the rest of step 1 as written.
    runtime = await startRuntime({ ...env, PATH: process.env.PATH! }, { viaNpm: true });

    const listening = terminal(listen!.replace('4000', String(hookPort)), env);
    const [, secret] = await until(() => listening.text, /Webhook signing secret \(shown once; [^)]*\): (whsec_\S+)/);
    await until(() => listening.text, /Ready: waiting for events/);

    expect(receive).toMatch(/^WEBHOOK_SECRET=whsec_… /);
    const receiving = terminal(receive!.replace('whsec_…', secret!), { ...env, PORT: String(hookPort) });
    await until(() => receiving.text, /receiving on/);

    const ordering = terminal(firstOrder!, env);
    const [, orderId] = await until(() => ordering.text, /result (qs-\S+): confirmed, total 19\.98 EUR/, 90_000);
    await until(() => receiving.text, new RegExp(`verified commerce\\.order\\.result_ready\\.v1 evt_\\S+ order ${orderId}`));
    for (const state of ['received', 'validated', 'scheduled', 'in_call', 'completed']) {
      await until(() => receiving.text, new RegExp(`verified commerce\\.order\\.status_changed\\.v1 evt_\\S+ order ${orderId} → ${state}`));
    }
    // Deliveries are unordered, so the attempt's event may still be on its way after the result's.
    await until(() => receiving.text, /verified commerce\.call\.attempt_completed\.v1/);
    expect(receiving.text).not.toContain('rejected');
    await until(() => listening.text, /commerce\.order\.result_ready\.v1\s+evt_\S+\s+→ 204/);

    const triggering = terminal(trigger!, env);
    await until(() => triggering.text, /Final: completed, confirmed/, 90_000);
    await until(() => receiving.text, /verified commerce\.writeback\.failed\.v1 evt_\S+ order sandbox-writeback-failed-/);

    // A test event right away: with no subscription it goes to the running listen session, which forwards it.
    const testing = terminal(trigger!.replace(/trigger \S+( --wait)?/, 'trigger test-event'), env);
    const [, testEvent] = await until(() => testing.text, /Test event (evt_\S+) sent to your listen session/);
    await until(() => listening.text, new RegExp(`commerce\\.order\\.status_changed\\.v1\\s+${testEvent}\\s+→ 204`));
    await until(() => receiving.text, new RegExp(`verified commerce\\.order\\.status_changed\\.v1 ${testEvent}`));

    // The forwarder took nothing over: the sandbox tenant still has no subscription.
    const credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const client = createCommerceClient({ baseUrl: credentials.base_url, keyId: credentials.key_id, secret: credentials.secret });
    await expect(client.webhooks.getSubscription()).rejects.toMatchObject({ status: 404 });

    // A subscription of the partner's own delivers beside it (to the same receiver, which knows
    // only the session's secret and so refuses it): the terminal tells that attempt too.
    await client.webhooks.putSubscription({ url: `http://127.0.0.1:${hookPort}/hooks`, event_types: ['commerce.order.result_ready.v1'] });
    const test = await client.webhooks.test();
    await until(
      () => runtime!.output(),
      new RegExp(`^\\d\\d:\\d\\d:\\d\\d webhook ${test.delivery_id} → \\d{3}, \\S.* \\(attempt 1\\) tenant=sandbox event=${test.event_id}`, 'm'),
    );

    // What happened, as the npm start terminal told it: a line per request, per webhook attempt
    // and per call attempt, with their ids; no metric documents; not the sandbox CLI's polling.
    const shown = runtime.output();
    expect(shown).toMatch(/reference: http:\/\/127\.0\.0\.1:\d+\/docs/);
    expect(shown).toMatch(/^\d\d:\d\d:\d\d POST \/orders 201 \d+ ms tenant=sandbox req=\S+( corr=\S+)?$/m);
    // A call line names the order by its correlation id, never by the partner's own order id.
    const { correlation_id } = await client.orders.get(orderId!);
    expect(shown).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d call attempt 1: answered tenant=sandbox corr=${correlation_id}$`, 'm'));
    expect(shown).not.toContain(orderId!);
    expect(shown).not.toContain('"_aws"');
    expect(shown).not.toMatch(/GET \/webhook-(deliveries|listen-sessions)/);
  }, 300_000);
});
