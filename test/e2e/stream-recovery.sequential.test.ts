/**
 * Stream work is never dropped: with every invocation of both stream readers failing (the
 * fault switch), their batches run out of retries and records are skipped, as Lambda's event
 * source does after `retryAttempts`. A product's variants are still indexed (the reconciler
 * replays the product), an order waiting in `received` still reaches its final state (the
 * call scheduler finds it by its due entry), a confirmed result is still written back (and its
 * refusal reported), and every event still reaches the receiver (the reconciler replays the
 * event items whose fan-out never ran).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BenchKey, send } from '#bench/lib/client.ts';
import { freePort } from '#local/processes.ts';
import { eventually } from '../support/eventually.ts';
import { repoRoot } from '../support/paths.ts';
import { startReceiver } from '../support/receiver.ts';
import { killRuntime, startRuntime } from '../support/runtime.ts';

describe('stream records skipped after their retries', () => {
  it('still index a product, bring an order in received to its final state, write its result back and bring every event to the receiver', {
    timeout: 300_000,
  }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'commerce-stream-recovery-'));
    const receiver = await startReceiver(() => 'ok');
    const runtime = await startRuntime({
      PORT: String(await freePort()),
      LOCAL_DATA_DIR: dataDir,
      LOCAL_FAULTS: 'stream-processor:1,catalog-indexer:1',
      STREAM_RECOVERY_SECONDS: '2',
      LOCAL_RECONCILE_EVERY_SECONDS: '1',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    });
    let output = '';
    runtime.child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
      const key: BenchKey = { tenant: 'sandbox', keyId: credentials.key_id, secret: credentials.secret };
      const call = (method: string, path: string, body?: unknown) => send(runtime.baseUrl, key, method, path, body);
      const types = [
        'commerce.order.status_changed.v1',
        'commerce.call.attempt_completed.v1',
        'commerce.order.result_ready.v1',
        'commerce.writeback.failed.v1',
      ];
      expect((await call('PUT', '/webhook-subscription', { url: receiver.url, event_types: types })).status).toBe(201);
      const product = {
        external_product_id: 'tea',
        title: 'Tea',
        source_version: '1',
        variants: [{ external_variant_id: 'tea-1', price: '4.50', currency: 'EUR' }],
      };
      expect((await call('POST', '/products/batch', { products: [product] })).body.rejected).toBe(0);
      const consent = { status: 'granted', proof: { source: 'checkout', reference: 'proof-1', collected_at: '2026-01-01T00:00:00Z' } };
      expect((await call('PUT', '/customers/skipped', { phone: '+491510000000', locale: 'de-DE', consent, source_version: '1' })).status).toBeLessThan(300);
      // Sandbox scenario 8: confirmed, and the store refuses the write-back.
      expect((await call('PUT', '/customers/refused', { phone: '+491510000008', locale: 'de-DE', consent, source_version: '1' })).status).toBeLessThan(300);
      const order = {
        order_kind: 'standard',
        external_order_id: 'skipped-1',
        external_customer_id: 'skipped',
        items: [{ external_variant_id: 'tea-1', quantity: 1, price: '4.50', currency: 'EUR' }],
        contact_permission: { status: 'granted' },
        source_version: '1',
      };
      expect((await call('POST', '/orders', order)).status).toBe(201);
      expect((await call('POST', '/orders', { ...order, external_order_id: 'skipped-8', external_customer_id: 'refused' })).status).toBe(201);

      const final = await eventually(
        () => call('GET', '/orders/skipped-1'),
        (res) => ['completed', 'rejected', 'cancelled'].includes(res.body.processing_state),
        { timeoutMs: 120_000, everyMs: 500 },
      );
      expect(final.body.processing_state).toBe('completed');
      const refused = await eventually(
        () => call('GET', '/orders/skipped-8'),
        (res) => ['completed', 'rejected', 'cancelled'].includes(res.body.processing_state),
        { timeoutMs: 120_000, everyMs: 500 },
      );
      expect(refused.body.processing_state).toBe('completed');
      // received → validated → scheduled → in_call → completed, the attempt, the result: each event at least once.
      const delivered = () => new Set(receiver.received.map((r) => `${JSON.parse(r.body).event_type} ${JSON.parse(r.body).data.processing_state ?? ''}`));
      await eventually(
        () => delivered().size,
        (size) => size >= 8,
        { timeoutMs: 120_000, everyMs: 500 },
      );
      expect([...delivered()].sort()).toEqual(
        [
          'commerce.call.attempt_completed.v1 ',
          'commerce.order.result_ready.v1 ',
          'commerce.order.status_changed.v1 completed',
          'commerce.order.status_changed.v1 in_call',
          'commerce.order.status_changed.v1 received',
          'commerce.order.status_changed.v1 scheduled',
          'commerce.order.status_changed.v1 validated',
          'commerce.writeback.failed.v1 ',
        ].sort(),
      );
      // The stream processor really failed throughout, and its event source gave records up.
      await eventually(
        () => output,
        (text) => text.includes('stream-processor: skipped a record after retries'),
        { timeoutMs: 60_000, everyMs: 500 },
      );
      // On-call sees each skipped batch in the stream's on-failure queue, as on AWS, and purges it once the work is replayed.
      const admin = (...args: string[]) =>
        execFileSync('npm', ['run', '-s', 'admin', '--', ...args], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, LOCAL_DATA_DIR: dataDir } });
      const listed = await eventually(
        () => JSON.parse(admin('stream-failures', 'list', '--json')) as { failures: { consumer: string; condition: string; batch_size: number }[] },
        (l) => ['stream-processor', 'catalog-indexer'].every((consumer) => l.failures.some((f) => f.consumer === consumer)),
      );
      expect(listed.failures.find((f) => f.consumer === 'stream-processor')).toMatchObject({ condition: 'RetryAttemptsExhausted', batch_size: 1 });
      // The purge waits until nothing is overdue.
      await eventually(
        () => (JSON.parse(admin('stream-work', 'list', '--json')) as { overdue: boolean }[]).filter((p) => p.overdue),
        (overdue) => overdue.length === 0,
      );
      expect(admin('stream-failures', 'purge')).toContain('Purged');
    } finally {
      await killRuntime(runtime.child);
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
