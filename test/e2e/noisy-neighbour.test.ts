import { describe, expect, it } from 'vitest';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { readDelivery } from '#shared/webhooks/delivery-store.ts';
import { ENDPOINT_SLOTS } from '#shared/webhooks/endpoint-guard.ts';
import { admitWebhookSend, WEBHOOK_SEND_LIMIT } from '#shared/webhooks/send-limit.ts';
import { eventually } from '../support/eventually.ts';
import { startHangingEndpoint, startReceiver } from '../support/receiver.ts';
import { call, newTenant, type TestKey } from '../support/stack.ts';

const subscribe = async (key: TestKey, url: string) =>
  expect((await call(key, 'PUT', '/webhook-subscription', { body: { url, event_types: ['commerce.order.status_changed.v1'] } })).status).toBe(201);

const health = async (key: TestKey) => (await call(key, 'GET', '/webhook-subscription')).body.health as { breaker: string; paused_until: string | null };

describe('a hanging endpoint of one tenant', () => {
  it("does not delay another tenant's deliveries; its breaker opens, and closes once it answers", { timeout: 600_000 }, async () => {
    const hanging = await startHangingEndpoint();
    const receiver = await startReceiver(() => 'ok');
    try {
      const [a, b] = [await newTenant({ config: { rate_limit: { requests_per_second: 500, burst: 500 } } }), await newTenant()];
      await subscribe(a, hanging.url);
      await subscribe(b, receiver.url);
      const pending = await mapWithConcurrency(
        Array.from({ length: 100 }),
        10,
        async () => (await call(a, 'POST', '/webhook-subscription/test')).body.delivery_id as string,
      );
      expect(pending.filter(Boolean)).toHaveLength(100);

      // B's test events while A's pile waits: each arrives within a few seconds of being sent.
      const delays: number[] = [];
      const breakerSeen = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const sent = Date.now();
        const event = (await call(b, 'POST', '/webhook-subscription/test')).body.event_id as string;
        const arrived = await eventually(
          () => receiver.received.find((r) => r.headers['x-svc-webhook-event-id'] === event),
          (r) => r !== undefined,
          { timeoutMs: 30_000, everyMs: 20 },
        );
        delays.push((arrived?.at ?? Number.POSITIVE_INFINITY) - sent);
        breakerSeen.add((await health(a)).breaker);
      }
      expect(
        delays.every((ms) => ms < 3_000),
        `B's delays: ${delays.join(', ')} ms`,
      ).toBe(true);
      const opened = await eventually(
        () => health(a),
        (h) => h.breaker === 'open',
        { timeoutMs: 20_000, everyMs: 100 },
      );
      expect(opened.paused_until).not.toBeNull();
      // Never more than its slots at once, however many deliveries wait.
      expect(hanging.figures().mostOpen).toBeLessThanOrEqual(ENDPOINT_SLOTS);

      // Paused as a whole: the 100 deliveries (8 attempts each, 800 in all without a breaker)
      // got the few attempts before it opened and one probe per pause.
      const whileHanging = hanging.figures().requests;
      expect(whileHanging).toBeLessThan(100);

      hanging.answer();
      const closed = await eventually(
        () => health(a),
        (h) => h.breaker === 'closed',
        { timeoutMs: 30_000, everyMs: 200 },
      );
      expect(closed).toMatchObject({ breaker: 'closed', paused_until: null });
      // A's deliveries arrive once it answers: none is lost. The test's 1 s pauses give far more
      // probes than AWS's 30 s to 10 min ones, so a delivery probed 8 times is dead-lettered
      // (replayable). Each settles within seconds of the breaker closing; the wait stays far
      // below the queue's visibility timeout and the reconciler's grace, so a message that went
      // missing (once: a shared batch processor answered a retried message as done) fails here.
      const count = async (status: string) => (await call(a, 'GET', '/webhook-deliveries', { query: { status, limit: '200' } })).body.data.length as number;
      const settled = await eventually(
        async () => ({ delivered: await count('delivered'), dead: await count('dead_lettered') }),
        ({ delivered, dead }) => delivered + dead === 100,
        { timeoutMs: 120_000, everyMs: 1000 },
      );
      const unsettled = (await call(a, 'GET', '/webhook-deliveries', { query: { limit: '200' } })).body.data.filter(
        (d: { status: string }) => d.status !== 'delivered' && d.status !== 'dead_lettered',
      );
      // What on-call would look at: the stored delivery (its lease and the reconciler's due time).
      const stored = await Promise.all(
        unsettled.slice(0, 3).map(async (d: { delivery_id: string }) => {
          const item = await readDelivery(a.tenant, d.delivery_id);
          return {
            id: d.delivery_id,
            status: item?.status,
            attempts: item?.attempts,
            lease: item?.delivering_until,
            due: (item as { gsi2sk?: string })?.gsi2sk,
          };
        }),
      );
      expect(settled.delivered + settled.dead, `not settled at ${new Date().toISOString()}: ${JSON.stringify(stored)}`).toBe(100);
      expect(settled.dead).toBeLessThanOrEqual(whileHanging / 8);
    } finally {
      await hanging.close();
      await receiver.close();
    }
  });

  it(`holds test and replay deliveries to ${WEBHOOK_SEND_LIMIT.burst} in a window per tenant, with Retry-After, whatever its request rate`, async () => {
    const receiver = await startReceiver(() => 'ok');
    try {
      const key = await newTenant({ config: { rate_limit: { requests_per_second: 500, burst: 500 } } });
      await subscribe(key, receiver.url);
      const first = await call(key, 'POST', '/webhook-subscription/test');
      expect(first.status).toBe(202);
      // The rest of the window's allowance taken as the handlers take it (no 200 deliveries to
      // load the shared stack), then a test and a replay, all inside one window: on a slow
      // machine the window may turn before they are through, and then the sequence is made
      // again in the next one.
      const windowMs = (WEBHOOK_SEND_LIMIT.burst / WEBHOOK_SEND_LIMIT.requests_per_second) * 1000;
      const windowOf = (ms: number) => Math.floor(ms / windowMs);
      for (let tries = 1; ; tries++) {
        if (Date.now() % windowMs > windowMs - 8_000) await new Promise((r) => setTimeout(r, windowMs - (Date.now() % windowMs) + 100));
        const window = windowOf(Date.now());
        const taken = await mapWithConcurrency(Array.from({ length: WEBHOOK_SEND_LIMIT.burst }), 16, () =>
          admitWebhookSend(key.tenant, new Date()).then(
            () => true,
            () => false,
          ),
        );
        const test = await call(key, 'POST', '/webhook-subscription/test');
        const replay = await call(key, 'POST', `/webhook-deliveries/${first.body.delivery_id}/replay`);
        if (windowOf(Date.now()) !== window && tries < 3) continue;
        expect(taken.filter(Boolean).length).toBeLessThanOrEqual(WEBHOOK_SEND_LIMIT.burst);
        for (const res of [test, replay]) {
          expect([res.status, res.body.code]).toEqual([429, 'rate_limited']);
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        }
        break;
      }
    } finally {
      await receiver.close();
    }
  });
});
