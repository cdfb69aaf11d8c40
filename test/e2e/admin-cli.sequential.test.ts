/**
 * The admin CLI of contract-decisions section 9 against a running local runtime, as an
 * operator types it: keys, tenant configuration, and the on-call dead-letter redrive.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BenchKey, send } from '#bench/lib/client.ts';
import { freePort } from '#local/processes.ts';
import { eventually } from '../support/eventually.ts';
import { repoRoot } from '../support/paths.ts';
import { startReceiver } from '../support/receiver.ts';
import { killRuntime, type Runtime, startRuntime } from '../support/runtime.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'commerce-admin-'));
let runtime: Runtime;

beforeAll(async () => {
  runtime = await startRuntime({
    PORT: String(await freePort()),
    LOCAL_DATA_DIR: dataDir,
    AUTH_CACHE_SECONDS: '1',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_BACKOFF_SCALE: '0.0001',
    // Svix's 5 days, scaled: a subscription whose every attempt failed for 4 s is disabled.
    WEBHOOK_DISABLE_AFTER_SECONDS: '4',
    WEBHOOK_TIMEOUT_SCALE: '0.1',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  });
});
afterAll(async () => {
  if (runtime) await killRuntime(runtime.child);
  rmSync(dataDir, { recursive: true, force: true });
});

/** `npm run -s admin -- …`: -s keeps npm's own banner off stdout, so `--json` output parses. */
async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', '-s', 'admin', '--', ...args], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', LOCAL_DATA_DIR: dataDir },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function createKey(tenant: string, scopes: string): Promise<BenchKey> {
  const created = await admin('keys', 'create', '--tenant', tenant, '--scopes', scopes, '--json');
  expect(created.code).toBe(0);
  const key = JSON.parse(created.stdout);
  expect(Object.keys(key).sort()).toEqual(['key_id', 'scopes', 'secret', 'tenant']);
  expect(key).toMatchObject({ tenant, scopes: scopes.split(',') });
  return { tenant, keyId: key.key_id, secret: key.secret };
}

describe('npm run admin', () => {
  it('keys create --json prints only the key, whose scopes hold; keys revoke ends it', async () => {
    const key = await createKey('acme', 'orders:read');
    expect((await send(runtime.baseUrl, key, 'GET', '/orders')).status).toBe(200);
    const refused = await send(runtime.baseUrl, key, 'GET', '/products');
    expect(refused.status).toBe(403);

    const revoked = await admin('keys', 'revoke', '--key-id', key.keyId);
    expect(revoked.code).toBe(0);
    const after = await eventually(
      () => send(runtime.baseUrl, key, 'GET', '/orders'),
      (res) => res.status === 401,
    );
    expect(after.status).toBe(401);
    expect((await admin('keys', 'revoke', '--key-id', 'key_unknown')).code).toBe(2);
  });

  it('tenants put stores the configuration the API then shows, and refuses an invalid file without writing', async () => {
    const file = join(dataDir, 'tenant.json');
    const config = {
      status: 'active',
      markets: [{ country: 'AT', locale_default: 'de-AT', calling_days: [1, 2, 3, 4, 5] }],
      quiet_hours: { timezone: 'Europe/Vienna', dont_call_hour_start: 20, dont_call_hour_end: 9 },
      features_enabled: { upsell: true, repurchase_intent: false },
    };
    writeFileSync(file, JSON.stringify(config));
    expect((await admin('tenants', 'put', '--tenant', 'globex', '--config', file)).code).toBe(0);
    const key = await createKey('globex', 'configuration:read,commerce:read');
    const effective = await send(runtime.baseUrl, key, 'GET', '/configuration/effective');
    expect(effective.body).toMatchObject({ markets: config.markets, quiet_hours: config.quiet_hours, features_enabled: config.features_enabled });
    expect((await send(runtime.baseUrl, key, 'GET', '/capabilities')).body.order_kinds).toEqual(['standard']);

    writeFileSync(file, JSON.stringify({ ...config, quiet_hours: { ...config.quiet_hours, timezone: 'Mars/Olympus' } }));
    const invalid = await admin('tenants', 'put', '--tenant', 'globex', '--config', file);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('invalid configuration');
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past the configuration cache
    expect((await send(runtime.baseUrl, key, 'GET', '/configuration/effective')).body.quiet_hours.timezone).toBe('Europe/Vienna');

    // A live tenant's customers would be called for real: this runtime has only the simulated network.
    writeFileSync(file, JSON.stringify({ ...config, mode: 'live' }));
    const live = await admin('tenants', 'put', '--tenant', 'globex', '--config', file);
    expect(live.code).toBe(2);
    expect(live.stderr).toContain('tenant globex cannot be live on this deployment: it has no call platform for live calls');
    const after = (await send(runtime.baseUrl, key, 'GET', '/configuration/effective')).body;
    expect(after).toMatchObject({ mode: 'sandbox', quiet_hours: { timezone: 'Europe/Vienna' } });
    expect(key.keyId).toMatch(/^key_test_[0-9a-f]{24}$/);
  });

  it('dlq list names a dead-lettered delivery and dlq redrive sends it again', async () => {
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 'ok' : 'fail'));
    try {
      const key = await createKey('initech', 'webhooks:read,webhooks:write');
      expect(
        (await send(runtime.baseUrl, key, 'PUT', '/webhook-subscription', { url: receiver.url, event_types: ['commerce.order.status_changed.v1'] })).status,
      ).toBe(201);
      const test = await send(runtime.baseUrl, key, 'POST', '/webhook-subscription/test');
      const deliveryId = test.body.delivery_id as string;
      const deliveryOf = async () =>
        (await send(runtime.baseUrl, key, 'GET', '/webhook-deliveries')).body.data.find((d: { delivery_id: string }) => d.delivery_id === deliveryId);
      expect((await eventually(deliveryOf, (d) => d?.status === 'dead_lettered')).status).toBe('dead_lettered');

      const listed = await eventually(
        () => admin('dlq', 'list'),
        (res) => res.stdout.includes(deliveryId),
      );
      expect(listed.stdout).toMatch(/^1 message\(s\) in the webhook dead-letter queue/);
      expect(listed.stdout).toContain(`delivery=${deliveryId}  tenant=initech`);
      expect(listed.stdout).not.toContain(receiver.url);

      healthy = true;
      const redriven = await admin('dlq', 'redrive');
      expect(redriven.stdout).toContain('Moved 1 message(s)');
      expect((await eventually(deliveryOf, (d) => d?.status === 'delivered')).attempts).toBe(9);
      expect((await admin('dlq', 'list')).stdout).toMatch(/^0 message\(s\)/);
    } finally {
      await receiver.close();
    }
  });

  it('finds a dead-lettered delivery with deliveries list, shows its attempts, recovers it by time, and redrives by tenant only', async () => {
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 'ok' : 'fail'));
    try {
      const key = await createKey('globex', 'webhooks:read,webhooks:write');
      const other = await createKey('hooli', 'webhooks:read,webhooks:write');
      for (const k of [key, other]) {
        expect(
          (await send(runtime.baseUrl, k, 'PUT', '/webhook-subscription', { url: receiver.url, event_types: ['commerce.order.status_changed.v1'] })).status,
        ).toBe(201);
      }
      const since = new Date(Date.now() - 1000).toISOString();
      const deliveryId = (await send(runtime.baseUrl, key, 'POST', '/webhook-subscription/test')).body.delivery_id as string;
      const otherId = (await send(runtime.baseUrl, other, 'POST', '/webhook-subscription/test')).body.delivery_id as string;
      const listed = await eventually(
        () => admin('deliveries', 'list', '--status', 'dead_lettered', '--json'),
        (res) => res.stdout.includes(deliveryId) && res.stdout.includes(otherId),
        { timeoutMs: 60_000, everyMs: 500 },
      );
      const found = JSON.parse(listed.stdout) as { delivery_id: string; tenant: string; attempts: number; status: string }[];
      expect(found.find((d) => d.delivery_id === deliveryId)).toMatchObject({ tenant: 'globex', attempts: 8, status: 'dead_lettered' });
      expect(listed.stdout).not.toContain(receiver.url);

      const shown = await admin('deliveries', 'show', deliveryId, '--tenant', 'globex');
      expect(shown.code).toBe(0);
      expect(shown.stdout.split('\n').filter((line) => /^ {2}#\d+ {2}\S+ {2}500 /.test(line))).toHaveLength(8);
      expect(shown.stdout).not.toContain(receiver.url);
      // On-call often has the id alone: the tenant is found.
      const byIdAlone = await admin('deliveries', 'show', deliveryId);
      expect(byIdAlone.code).toBe(0);
      expect(byIdAlone.stdout).toBe(shown.stdout);

      healthy = true;
      // The DLQ holds both tenants' messages: a redrive for one tenant moves only that one's.
      const redriven = await admin('dlq', 'redrive', '--tenant', 'hooli', '--rate', '50');
      expect(redriven.stdout).toContain('Moved 1 message(s)');
      const hooliDelivery = async () =>
        (await send(runtime.baseUrl, other, 'GET', '/webhook-deliveries')).body.data.find((d: { delivery_id: string }) => d.delivery_id === otherId);
      expect((await eventually(hooliDelivery, (d) => d?.status === 'delivered')).attempts).toBe(9);
      // The other tenant's message stays (hidden for the few seconds the move looked at it).
      const left = await eventually(
        () => admin('dlq', 'list'),
        (res) => res.stdout.includes(deliveryId),
      );
      expect(left.stdout).toContain(`delivery=${deliveryId}  tenant=globex`);
      expect(left.stdout).not.toContain(otherId);

      // The runbook's fix, and nothing else: recover ends the incident.
      const recovered = JSON.parse((await admin('recover', '--tenant', 'globex', '--since', since, '--json')).stdout) as { original: string; replay: string }[];
      expect(recovered.map((r) => r.original)).toEqual([deliveryId]);
      const replayed = await eventually(
        () => admin('deliveries', 'list', '--tenant', 'globex', '--status', 'delivered', '--json'),
        (res) => res.stdout.includes(recovered[0]!.replay),
      );
      expect(JSON.parse(replayed.stdout)[0]).toMatchObject({ delivery_id: recovered[0]!.replay, attempts: 1, replay_of: deliveryId });
      // The runbook's Verify: the original says what replaced it, the DLQ is empty (its depth is
      // the alarm's metric), and a second recover re-sends nothing.
      const original = (await send(runtime.baseUrl, key, 'GET', '/webhook-deliveries')).body.data.find(
        (d: { delivery_id: string }) => d.delivery_id === deliveryId,
      );
      expect(original).toMatchObject({ status: 'dead_lettered', recovered_by: recovered[0]!.replay });
      // Every listing says it was handled, not only --json.
      const text = await admin('deliveries', 'list', '--tenant', 'globex', '--status', 'dead_lettered');
      expect(text.stdout).toMatch(new RegExp(`${deliveryId} .* dead_lettered {2}recovered_by=${recovered[0]!.replay} `));
      expect((await admin('dlq', 'list')).stdout).toMatch(/^0 message\(s\) in the webhook dead-letter queue/);
      expect(JSON.parse((await admin('recover', '--tenant', 'globex', '--since', since, '--json')).stdout)).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('disables an endpoint whose every attempt failed for the period, parks what follows, and recovers it after the partner enables it again', async () => {
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 'ok' : 'fail'));
    try {
      const key = await createKey('umbrella', 'webhooks:read,webhooks:write,orders:write,orders:read');
      const subscription = { url: receiver.url, event_types: ['commerce.order.status_changed.v1'], enabled: true };
      expect((await send(runtime.baseUrl, key, 'PUT', '/webhook-subscription', subscription)).status).toBe(201);
      const read = async () => (await send(runtime.baseUrl, key, 'GET', '/webhook-subscription')).body;
      // Test events keep failing until the service gives the endpoint up.
      const disabled = await eventually(
        async () => {
          await send(runtime.baseUrl, key, 'POST', '/webhook-subscription/test');
          return read();
        },
        (s) => s.enabled === false,
        { timeoutMs: 60_000, everyMs: 1000 },
      );
      expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'endpoint_failing', disabled_at: expect.any(String) });

      const since = new Date().toISOString();
      const order = {
        order_kind: 'standard',
        external_order_id: 'parked-1',
        external_customer_id: 'c-1',
        items: [{ external_variant_id: 'v', quantity: 1, price: '1.00', currency: 'EUR' }],
        contact_permission: { status: 'granted' },
        source_version: '1',
      };
      expect((await send(runtime.baseUrl, key, 'POST', '/orders', order)).status).toBe(201);
      const parked = await eventually(
        async () =>
          (await send(runtime.baseUrl, key, 'GET', '/webhook-deliveries')).body.data.filter(
            (d: { attempts: number; status: string }) => d.status === 'dead_lettered' && d.attempts === 0,
          ),
        (ds) => ds.length > 0,
      );
      expect(parked[0]).toMatchObject({ event_type: 'commerce.order.status_changed.v1', status: 'dead_lettered', attempts: 0, last_attempt: null });
      expect((await send(runtime.baseUrl, key, 'GET', `/webhook-deliveries/${parked[0].delivery_id}`)).body.attempt_log).toEqual([]);

      healthy = true;
      expect((await send(runtime.baseUrl, key, 'PUT', '/webhook-subscription', subscription)).status).toBe(200);
      expect(await read()).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null });
      const recovered = JSON.parse((await admin('recover', '--tenant', 'umbrella', '--since', since, '--json')).stdout) as {
        original: string;
        replay: string;
      }[];
      expect(recovered.map((r) => r.original)).toContain(parked[0].delivery_id);
      const replay = recovered.find((r) => r.original === parked[0].delivery_id)!.replay;
      const shown = await eventually(
        async () => (await send(runtime.baseUrl, key, 'GET', `/webhook-deliveries/${replay}`)).body,
        (d) => d.status === 'delivered',
      );
      expect(shown.attempt_log).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, error: null })]);
    } finally {
      await receiver.close();
    }
  });

  it('explains what is missing instead of failing obscurely', async () => {
    const missing = await admin('keys', 'create', '--tenant', 'acme');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--scopes is required');
    const unknownScope = await admin('keys', 'create', '--tenant', 'acme', '--scopes', 'orders:read,everything');
    expect(unknownScope.stderr).toContain('unknown scopes: everything');
    const nonsense = await admin('nonsense');
    expect([nonsense.code, nonsense.stderr]).toEqual([2, expect.stringContaining('unknown command "nonsense"; the commands: keys create, ')]);
  });
});
