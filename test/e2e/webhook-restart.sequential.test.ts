/**
 * Never lose an event: the local runtime (`npm start`'s entry point, a separate process with
 * its data on disk) is killed in the middle of 200 pending deliveries and started again;
 * every event reaches the receiver at least once, and receivers deduplicate by event_id.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BenchKey, send } from '#bench/lib/client.ts';
import { freePort } from '#local/processes.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { eventually } from '../support/eventually.ts';
import { startReceiver } from '../support/receiver.ts';
import { killRuntime, startRuntime } from '../support/runtime.ts';

describe('a restart in the middle of deliveries', () => {
  it('delivers every one of 200 events at least once after the runtime is killed and started again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'commerce-restart-'));
    const receiver = await startReceiver(() => 'ok', { delayMs: 300 });
    const env = {
      PORT: String(await freePort()),
      LOCAL_DATA_DIR: dataDir,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_BACKOFF_SCALE: '0.001',
      WEBHOOK_TIMEOUT_SCALE: '0.2',
      // The reconciler's recovery (a message lost or a record left overdue) within this test's
      // two minutes instead of the deployed 7 minutes; the restart itself re-sends and replays at once.
      LOCAL_RECONCILE_EVERY_SECONDS: '2',
      QUEUE_REDELIVERY_GRACE_SECONDS: '20',
      STREAM_RECOVERY_SECONDS: '20',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    };
    let runtime = await startRuntime(env);
    try {
      const credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
      const key: BenchKey = { tenant: 'sandbox', keyId: credentials.key_id, secret: credentials.secret };
      const types = ['commerce.order.status_changed.v1'];
      expect((await send(runtime.baseUrl, key, 'PUT', '/webhook-subscription', { url: receiver.url, event_types: types })).status).toBe(201);

      const eventIds = await mapWithConcurrency(Array.from({ length: 200 }), 10, async () => {
        const res = await send(runtime.baseUrl, key, 'POST', '/webhook-subscription/test');
        expect(res.status).toBe(202);
        return res.body.event_id as string;
      });
      await eventually(
        () => receiver.received.length,
        (received) => received >= 20,
        { timeoutMs: 30_000, everyMs: 20 },
      );
      await killRuntime(runtime.child);
      const beforeRestart = new Set(receiver.received.map((r) => r.headers['x-svc-webhook-event-id']));
      expect(beforeRestart.size).toBeLessThan(200);

      runtime = await startRuntime(env);
      const unique = () => new Set(receiver.received.map((r) => r.headers['x-svc-webhook-event-id'] as string));
      await eventually(
        () => unique().size,
        (size) => size >= 200,
        { timeoutMs: 120_000, everyMs: 250 },
      );
      expect([...unique()].sort()).toEqual([...eventIds].sort());
      // At least once: some events may arrive twice across the crash; the event_id tells them apart.
      expect(receiver.received.length).toBeGreaterThanOrEqual(200);
    } finally {
      await killRuntime(runtime.child);
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
