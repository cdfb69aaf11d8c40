/**
 * Nothing lost under faults. On the real local runtime, with the fault switch failing a share
 * of the functions' DynamoDB and SQS calls as AWS does (throttling, 5xx, connections dropped
 * after the write), a receiver that answers 500, times out or resets a share of deliveries,
 * and the whole runtime SIGKILLed and started again at random moments: orders across every
 * sandbox scenario, with PATCHes and cancels, each reach the final state their scenario
 * says, half of them a live tenant's called through Amazon Connect (the local stand-in, whose
 * contact events are dropped, duplicated and reordered too, and whose calls a kill cuts off)
 * whose results are written back to a store endpoint that fails a share of its requests, each
 * result applied there exactly once, and the receiver gets every order's events: one unbroken chain of state changes from
 * its creation to its final state, one event per call attempt, a result event exactly when it
 * has a result (and any write-back failure), at least once each.
 *
 * `npm test` runs the short form (40 orders, one kill); `npm run chaos` the full one (500
 * orders, three kills). `CHAOS_SEED` repeats a run; the figures are printed and, for the full
 * run, written to bench/results/chaos.json.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '#local/processes.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { DECIDED_OUTCOMES } from '#shared/calls/call-schemas.ts';
import { keys } from '#shared/storage/keys.ts';
import { writeBackKey } from '#shared/writeback/writeback.ts';
import { type AnswerLog, KillableRuntime, partnerCall, seededRandom } from '../support/chaos.ts';
import type { ReceivedEvent } from '../support/chaos-table.ts';
import { eventually } from '../support/eventually.ts';
import { repoRoot } from '../support/paths.ts';
import { startReceiver } from '../support/receiver.ts';

const ORDERS = Number(process.env.CHAOS_ORDERS ?? 40);
const KILLS = Number(process.env.CHAOS_KILLS ?? 1);
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
const FAULTS = 'dynamodb:0.05,sqs:0.05,contact-events-drop:0.05,contact-events-duplicate:0.1,contact-events-reorder:0.2';
const EVENT_TYPES = [
  'commerce.order.status_changed.v1',
  'commerce.call.attempt_completed.v1',
  'commerce.order.result_ready.v1',
  'commerce.writeback.failed.v1',
];
/** contract-decisions section 7: the result each phone number's last digit ends in. */
const OUTCOME_BY_DIGIT = [
  'confirmed',
  'unreachable',
  'confirmed',
  'declined',
  'modified',
  'confirmed',
  'confirmed',
  'confirmed',
  'confirmed',
  'invalid_number',
];

interface Plan {
  id: string;
  /** 0: the sandbox tenant (the simulated network), 1: the live tenant (Connect). */
  tenant: number;
  digit: number;
  patch: boolean;
  cancel: boolean;
  cancelStatus?: number;
}

describe('chaos: faults, failing receivers and kills', () => {
  it(`loses nothing: ${ORDERS} orders, ${KILLS} kill(s), ${FAULTS}`, { timeout: Math.max(900_000, ORDERS * 6_000) }, async () => {
    const random = seededRandom(SEED);
    const dataDir = mkdtempSync(join(tmpdir(), 'commerce-chaos-'));
    const receiverRandom = seededRandom(SEED + 1);
    const receiver = await startReceiver(
      () => {
        const r = receiverRandom();
        return r < 0.1 ? 'fail' : r < 0.15 ? 'reset' : r < 0.2 ? 'sleep' : 'ok';
      },
      { sleepMs: 6_000 },
    );
    // The live tenant's store: a fifth of its requests fail with 500; a key it applied before is answered 409, as a store does.
    const storeRandom = seededRandom(SEED + 2);
    const applied = new Map<string, number>();
    const store = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const key = String(req.headers['idempotency-key']);
        if (applied.has(key)) return void res.writeHead(409).end();
        if (storeRandom() < 0.2) return void res.writeHead(500).end('store busy');
        applied.set(key, (applied.get(key) ?? 0) + 1);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', resolve));
    const storeUrl = `http://127.0.0.1:${(store.address() as AddressInfo).port}/results`;
    const runtime = new KillableRuntime({
      PORT: String(await freePort()),
      LOCAL_DATA_DIR: dataDir,
      LOCAL_FAULTS: FAULTS,
      CALL_PLATFORM: 'connect',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_BACKOFF_SCALE: '0.001',
      WEBHOOK_TIMEOUT_SCALE: '0.2',
      CALL_RETRY_DELAY_SECONDS: '1',
      CALL_STUCK_AFTER_SECONDS: '10',
      STREAM_RECOVERY_SECONDS: '5',
      QUEUE_REDELIVERY_GRACE_SECONDS: '20',
      LOCAL_RECONCILE_EVERY_SECONDS: '2',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    });
    const started = Date.now();
    await runtime.start();
    try {
      Object.assign(process.env, JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')).env);
      const { benchTenant, CALL_NOW_CONFIG } = await import('#bench/lib/client.ts');
      const { orderEventFaults, orderPartition, tenantDeliveries, openOrders, readFrom } = await import('../support/chaos-table.ts');
      readFrom(dataDir);
      const partners = [
        await benchTenant('chaos', { ...CALL_NOW_CONFIG, writeback: { enabled: true } }),
        await benchTenant('chaos-live', { ...CALL_NOW_CONFIG, mode: 'live', writeback: { enabled: true, url: storeUrl } }),
      ];
      const { rotateWritebackSecret } = await import('#shared/writeback/writeback-secret.ts');
      await rotateWritebackSecret(partners[1]!.tenant);
      const log: AnswerLog = { statuses: {}, improper: [] };
      const callAs = (tenant: number) => (method: string, path: string, body?: unknown) => partnerCall(runtime, partners[tenant]!, log, method, path, body);
      const coffee = {
        external_product_id: 'coffee',
        title: 'Coffee beans',
        source_version: '1',
        variants: [
          { external_variant_id: 'beans', price: '9.99', currency: 'EUR' },
          { external_variant_id: 'beans-1kg', price: '24.50', currency: 'EUR' },
        ],
      };
      const upsell = {
        rule_type: 'upsell',
        priority: 5,
        applies_to: { external_variant_ids: ['beans'] },
        action: { suggest_variant: 'beans-1kg' },
        source_version: '1',
      };
      const consent = { status: 'granted', proof: { source: 'checkout', reference: 'proof-1', collected_at: '2026-01-01T00:00:00Z' } };
      for (const tenant of [0, 1]) {
        const call = callAs(tenant);
        expect((await call('PUT', '/webhook-subscription', { url: receiver.url, event_types: EVENT_TYPES })).status).toBe(201);
        expect((await call('POST', '/products/batch', { products: [coffee] })).body.rejected).toBe(0);
        expect((await call('PUT', '/sales-rules/upsell', upsell)).status).toBe(200);
        for (let d = 0; d < 10; d++) {
          expect((await call('PUT', `/customers/c${d}`, { phone: `+491510000000${d}`, locale: 'de-DE', consent, source_version: '1' })).status).toBeLessThan(
            300,
          );
        }
      }
      // Let the variant index take the catalog in before the orders come.
      await new Promise((r) => setTimeout(r, 3_000));

      const plans: Plan[] = Array.from({ length: ORDERS }, (_, i) => ({
        id: `chaos-${i}`,
        tenant: Math.floor(i / 10) % 2,
        digit: i % 10,
        patch: random() < 0.2,
        cancel: random() < 0.15,
      }));
      const killAt = new Set(Array.from({ length: KILLS }, () => Math.floor(ORDERS * (0.1 + 0.8 * random()))));
      await mapWithConcurrency(plans, 8, async (plan, i) => {
        if (killAt.delete(i)) void runtime.killAndRestart();
        const call = callAs(plan.tenant);
        const body = {
          order_kind: 'standard',
          external_order_id: plan.id,
          external_customer_id: `c${plan.digit}`,
          items: [{ external_variant_id: 'beans', quantity: 2, price: '9.99', currency: 'EUR' }],
          contact_permission: { status: 'granted' },
          source_version: '1',
        };
        expect([200, 201]).toContain((await call('POST', '/orders', body)).status);
        if (plan.patch) expect([200, 409]).toContain((await call('PATCH', `/orders/${plan.id}`, { source_version: '2', priority: 3 })).status);
        if (plan.cancel) {
          plan.cancelStatus = (await call('POST', `/orders/${plan.id}/cancel`, { reason: 'customer_request' })).status;
          expect([200, 409]).toContain(plan.cancelStatus);
        }
      });
      await runtime.ready();
      const lastFaultAt = runtime.lastRestartAt;

      // Quiet: every order final, and every event of every order delivered (or dead-lettered).
      const tenantIds = partners.map((k) => k.tenant);
      const planTenant = (plan: Plan) => tenantIds[plan.tenant]!;
      const everyDelivery = async () => (await Promise.all(tenantIds.map((t) => tenantDeliveries(t)))).flat();
      await eventually(
        async () => (await Promise.all(tenantIds.map((t) => openOrders(t)))).reduce((a, b) => a + b, 0),
        (open) => open === 0,
        { timeoutMs: 600_000, everyMs: 2_000 },
      );
      const answeredOk = () => receiver.received.filter((r) => r.behaviour === 'ok').map((r) => String(r.headers['x-svc-webhook-event-id']));
      // End to end: what the receiver answered 2xx to, per order, against what the order became.
      const pending = async () => {
        const byOrder = new Map<string, ReceivedEvent[]>();
        for (const r of receiver.received.filter((r) => r.behaviour === 'ok')) {
          const event = JSON.parse(r.body) as ReceivedEvent;
          if (event.external_order_id) byOrder.set(event.external_order_id, [...(byOrder.get(event.external_order_id) ?? []), event]);
        }
        const deadLettered = (await everyDelivery()).filter((d) => d.status === 'dead_lettered').map((d) => d.event_id);
        const orders = await mapWithConcurrency(plans, 8, async (p) => ({ plan: p, ...(await orderPartition(planTenant(p), p.id)) }));
        const missing = orders.flatMap(({ plan, order, attempts, result, eventItems }) =>
          orderEventFaults(byOrder.get(plan.id) ?? [], {
            state: String(order?.processing_state),
            attempts: attempts.map((a) => a.attempt),
            hasResult: result !== undefined,
            eventItems: eventItems.map((e) => e.event_id),
          }).map((fault) => `${plan.id}: ${fault}`),
        );
        const events = new Set([...byOrder.values()].flat().map((e) => e.event_id)).size;
        return { events, missing: deadLettered.length ? [...missing, `dead-lettered: ${deadLettered.join(',')}`] : missing, deadLettered };
      };
      const quiet = await eventually(pending, (p) => p.missing.length === 0, {
        timeoutMs: Number(process.env.CHAOS_QUIET_TIMEOUT_MS ?? 600_000),
        everyMs: 5_000,
      });
      // Write-backs settle on their own clock (their retries wait growing multiples of STREAM_RECOVERY_SECONDS).
      await eventually(
        async () =>
          (await mapWithConcurrency(plans, 8, async (p) => (await orderPartition(planTenant(p), p.id)).result?.writeback_state)).filter((s) => s === 'pending')
            .length,
        (pending) => pending === 0,
        { timeoutMs: 180_000, everyMs: 2_000 },
      );
      const quietAfterMs = Date.now() - lastFaultAt;

      const wrong: string[] = [];
      for (const plan of plans) {
        const { order, attempts, result } = await orderPartition(planTenant(plan), plan.id);
        const state = String(order?.processing_state);
        if (plan.cancelStatus === 200 && state !== 'cancelled') wrong.push(`${plan.id}: cancelled with 200 but ${state}`);
        if (plan.cancelStatus !== 200 && state !== 'completed') wrong.push(`${plan.id}: ${state}, not completed`);
        if (state === 'completed' && result?.business_outcome !== OUTCOME_BY_DIGIT[plan.digit]) wrong.push(`${plan.id}: outcome ${result?.business_outcome}`);
        const numbers = attempts.map((a) => a.attempt).sort((a, b) => a - b);
        if (numbers.some((n, i) => n !== i + 1)) wrong.push(`${plan.id}: attempts ${numbers.join(',')}`);
        // The live tenant's decided results: written back, and applied by its store exactly once.
        if (plan.tenant === 1 && result && DECIDED_OUTCOMES.includes(result.business_outcome as never)) {
          const times = applied.get(writeBackKey(keys.order(planTenant(plan), plan.id).pk)) ?? 0;
          if (result.writeback_state !== 'written' || times !== 1) wrong.push(`${plan.id}: write-back ${result.writeback_state}, applied ${times} time(s)`);
        }
      }
      const deliveries = await everyDelivery();
      const overAttempted = deliveries.filter((d) => d.attempts > 8);
      const okAnswers = new Map<string, number>();
      for (const id of answeredOk()) okAnswers.set(id, (okAnswers.get(id) ?? 0) + 1);
      const faults: Record<string, number> = {};
      for (const file of readdirSync(dataDir).filter((f) => f.startsWith('faults-'))) {
        for (const [kind, n] of Object.entries(JSON.parse(readFileSync(join(dataDir, file), 'utf8')) as Record<string, number>))
          faults[kind] = (faults[kind] ?? 0) + n;
      }
      // Calls a function's synthesized policy refused, in every run of the runtime (written every 500 ms and on stop).
      const refused = readdirSync(dataDir)
        .filter((f) => f.startsWith('refused-'))
        .flatMap((file) => JSON.parse(readFileSync(join(dataDir, file), 'utf8')) as string[]);
      const figures = {
        seed: SEED,
        orders: ORDERS,
        live_orders: plans.filter((p) => p.tenant === 1).length,
        results_written_back: applied.size,
        patches: plans.filter((p) => p.patch).length,
        cancels: plans.filter((p) => p.cancel).length,
        kills: runtime.kills,
        faults_injected: faults,
        receiver_requests: receiver.received.length,
        events: quiet.events,
        lost: quiet.missing.length,
        dead_lettered: quiet.deadLettered.length,
        duplicates_delivered: [...okAnswers.values()].filter((n) => n > 1).length,
        wrong_final_states: wrong.length,
        deliveries_over_8_attempts: overAttempted.length,
        partner_answers: log.statuses,
        improper_answers: log.improper.length,
        refused_calls: refused.length,
        quiet_after_last_fault_ms: quietAfterMs,
        total_ms: Date.now() - started,
        // Which order's events are wrong at the receiver, and how.
        missing: quiet.missing,
      };
      console.info(`chaos figures: ${JSON.stringify(figures)}`);
      if (process.env.CHAOS_RECORD === 'true') {
        mkdirSync(join(repoRoot, 'bench/results'), { recursive: true });
        writeFileSync(join(repoRoot, 'bench/results/chaos.json'), `${JSON.stringify(figures, null, 2)}\n`);
      }
      expect(Object.values(faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      expect(runtime.kills).toBe(KILLS);
      expect(wrong).toEqual([]);
      expect(quiet.missing).toEqual([]);
      expect(overAttempted).toEqual([]);
      expect(log.improper).toEqual([]);
      expect(refused).toEqual([]);
    } finally {
      await runtime.stop();
      await receiver.close();
      await new Promise((resolve) => store.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
