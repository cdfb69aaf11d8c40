/**
 * Webhooks end to end: outbox → stream → SQS → signed delivery to a real receiver on
 * 127.0.0.1, with retries, timeouts, resets, dead-lettering, redrive, replay and rotation.
 * The test stack shrinks the backoff (WEBHOOK_BACKOFF_SCALE) and the timeouts (×0.1: 1.5 s total).
 */
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '#shared/outbound/signature.ts';
import { moveDeadLetters } from '#shared/queue/dead-letters.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { eventually } from '../support/eventually.ts';
import { customerBody, orderBody, orderTenant } from '../support/orders.ts';
import { type Behaviour, startReceiver } from '../support/receiver.ts';
import { scanByKeyPrefix } from '../support/scan.ts';
import { call, newTenant, type TestKey } from '../support/stack.ts';

const ALL_TYPES = ['commerce.order.status_changed.v1', 'commerce.call.attempt_completed.v1', 'commerce.order.result_ready.v1', 'commerce.writeback.failed.v1'];

async function subscribe(key: TestKey, url: string) {
  const res = await call(key, 'PUT', '/webhook-subscription', { body: { url, event_types: ALL_TYPES, enabled: true } });
  expect(res.status).toBe(201);
  expect(res.body.secret).toMatch(/^whsec_/);
  return res.body.secret as string;
}

async function deliveryOf(key: TestKey, id: string) {
  const list = await call(key, 'GET', '/webhook-deliveries', { query: { limit: '200' } });
  return list.body.data.find((d: { delivery_id: string }) => d.delivery_id === id);
}

async function waitForDelivery(key: TestKey, id: string, status: string, timeoutMs = 45_000) {
  const d = await eventually(
    () => deliveryOf(key, id),
    (seen) => seen?.status === status,
    { timeoutMs, everyMs: 150 },
  );
  if (d?.status !== status) throw new Error(`delivery ${id} is ${JSON.stringify(d)}, not ${status}`);
  return d;
}

/** The console's redrive, for one message (the DLQ is shared with the other test files). */
async function redrive(deliveryId: string): Promise<number> {
  let moved = 0;
  for (let round = 0; round < 20 && moved === 0; round++) {
    moved = await moveDeadLetters({ select: (body) => body.delivery_id === deliveryId });
    if (!moved) await new Promise((r) => setTimeout(r, 250));
  }
  return moved;
}

describe('webhook delivery', () => {
  it('500, then a timeout, then a reset, then 200: one delivery, 4 attempts, delivered, and every attempt verifies', async () => {
    const script: Behaviour[] = ['fail', 'sleep', 'reset', 'ok'];
    const receiver = await startReceiver((n) => script[n - 1] ?? 'ok', { sleepMs: 4000 });
    try {
      const key = await newTenant();
      const secret = await subscribe(key, receiver.url);
      const test = await call(key, 'POST', '/webhook-subscription/test');
      expect(test.status).toBe(202);
      const delivery = await waitForDelivery(key, test.body.delivery_id, 'delivered');
      expect(delivery).toMatchObject({
        attempts: 4,
        event_id: test.body.event_id,
        event_type: 'commerce.order.status_changed.v1',
        last_attempt: { status_code: 200, error: null },
      });
      expect(receiver.received).toHaveLength(4);
      for (const r of receiver.received) {
        expect(verifyWebhook(r.headers as Record<string, string>, r.body, [secret])).toEqual({ valid: true, eventId: test.body.event_id });
        // As a partner using the Standard Webhooks library (or Svix's) verifies it, with the same secret.
        expect(new StandardWebhook(secret).verify(r.body, r.headers as Record<string, string>)).toMatchObject({ event_id: test.body.event_id });
        expect(r.headers['webhook-id']).toBe(test.body.event_id);
        expect(JSON.parse(r.body)).toMatchObject({ event_id: test.body.event_id, test: true, event_version: '1', integration_ref: key.tenant });
      }
      expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
      const subscription = await call(key, 'GET', '/webhook-subscription');
      expect(subscription.body.health).toMatchObject({ status: 'degraded', consecutive_failures: 0, success_rate_24h: 0.25 });
      expect(subscription.text).not.toContain(secret);
    } finally {
      await receiver.close();
    }
  });

  it('a receiver that always fails: exactly 8 attempts, dead_lettered, one message in the DLQ; redrive and replay both deliver the same event', async () => {
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 'ok' : 'fail'));
    try {
      const key = await newTenant();
      const secret = await subscribe(key, receiver.url);
      const test = await call(key, 'POST', '/webhook-subscription/test');
      const dead = await waitForDelivery(key, test.body.delivery_id, 'dead_lettered', 60_000);
      expect(dead.attempts).toBe(8);
      expect(receiver.received).toHaveLength(8);
      expect(
        (await call(key, 'GET', '/webhook-deliveries', { query: { status: 'dead_lettered' } })).body.data.map((d: { delivery_id: string }) => d.delivery_id),
      ).toEqual([test.body.delivery_id]);
      expect((await call(key, 'GET', '/webhook-subscription')).body.health).toMatchObject({ status: 'failing', consecutive_failures: 8 });

      healthy = true;
      expect(await redrive(test.body.delivery_id)).toBe(1);
      const redriven = await waitForDelivery(key, test.body.delivery_id, 'delivered');
      expect(redriven.attempts).toBe(9);

      const replay = await call(key, 'POST', `/webhook-deliveries/${test.body.delivery_id}/replay`);
      expect(replay.status).toBe(202);
      expect(replay.body).toMatchObject({ replay_of: test.body.delivery_id, event_id: test.body.event_id, status: 'queued' });
      const replayed = await waitForDelivery(key, replay.body.delivery_id, 'delivered');
      expect(replayed).toMatchObject({ replay_of: test.body.delivery_id, attempts: 1, event_id: test.body.event_id });
      const [redriveBody, replayBody] = receiver.received.slice(-2);
      expect(replayBody!.body).toBe(redriveBody!.body);
      for (const r of receiver.received.slice(-2)) expect(verifyWebhook(r.headers as Record<string, string>, r.body, [secret]).valid).toBe(true);
      expect((await call(key, 'POST', '/webhook-deliveries/dlv_unknown/replay')).status).toBe(404);
    } finally {
      await receiver.close();
    }
  });

  it('a partner recovers its own dead letters after an outage: each re-sent once, the original marked, a second call re-sends nothing', async () => {
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 'ok' : 'fail'));
    try {
      const key = await newTenant();
      await subscribe(key, receiver.url);
      const since = new Date(Date.now() - 1000).toISOString();
      const tests = [await call(key, 'POST', '/webhook-subscription/test'), await call(key, 'POST', '/webhook-subscription/test')];
      for (const t of tests) await waitForDelivery(key, t.body.delivery_id, 'dead_lettered', 60_000);

      healthy = true;
      const recovered = await call(key, 'POST', '/webhook-deliveries/recover', { body: { since } });
      expect(recovered.status).toBe(202);
      expect(recovered.body.more).toBe(false);
      expect(recovered.body.recovered.map((r: { original: string }) => r.original).sort()).toEqual(tests.map((t) => t.body.delivery_id).sort());
      for (const { original, replay } of recovered.body.recovered as { original: string; replay: string }[]) {
        expect(await waitForDelivery(key, replay, 'delivered')).toMatchObject({ replay_of: original, attempts: 1 });
        expect(await waitForDelivery(key, original, 'dead_lettered')).toMatchObject({ recovered_by: replay });
      }
      expect((await call(key, 'POST', '/webhook-deliveries/recover', { body: { since } })).body).toEqual({ recovered: [], more: false });
      const refused = await call(key, 'POST', '/webhook-deliveries/recover', { body: { since: 'yesterday' } });
      expect(refused.status).toBe(422);
      expect(new Set(refused.body.errors.map((e: { pointer: string }) => e.pointer))).toEqual(new Set(['/since']));
    } finally {
      await receiver.close();
    }
  });

  it('rotation: during the overlap the receiver verifies with either secret, after it only with the new one', async () => {
    const receiver = await startReceiver(() => 'ok');
    try {
      const key = await newTenant();
      const oldSecret = await subscribe(key, receiver.url);
      const rotated = await call(key, 'POST', '/webhook-subscription/secret/rotate', { body: { previous_secret_expires_in: 3600 } });
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).not.toBe(oldSecret);
      const during = await call(key, 'POST', '/webhook-subscription/test');
      await waitForDelivery(key, during.body.delivery_id, 'delivered');
      const overlap = receiver.received.at(-1)!;
      expect(verifyWebhook(overlap.headers as Record<string, string>, overlap.body, [oldSecret]).valid).toBe(true);
      expect(verifyWebhook(overlap.headers as Record<string, string>, overlap.body, [rotated.body.secret]).valid).toBe(true);
      for (const secret of [oldSecret, rotated.body.secret])
        expect(() => new StandardWebhook(secret).verify(overlap.body, overlap.headers as Record<string, string>)).not.toThrow();

      const ended = await call(key, 'POST', '/webhook-subscription/secret/rotate', { body: { previous_secret_expires_in: 0 } });
      const after = await call(key, 'POST', '/webhook-subscription/test');
      await waitForDelivery(key, after.body.delivery_id, 'delivered');
      const last = receiver.received.at(-1)!;
      expect(verifyWebhook(last.headers as Record<string, string>, last.body, [ended.body.secret]).valid).toBe(true);
      expect(verifyWebhook(last.headers as Record<string, string>, last.body, [oldSecret, rotated.body.secret]).valid).toBe(false);
      expect(() => new StandardWebhook(ended.body.secret).verify(last.body, last.headers as Record<string, string>)).not.toThrow();
      expect(() => new StandardWebhook(rotated.body.secret).verify(last.body, last.headers as Record<string, string>)).toThrow();
      expect(last.headers['x-svc-webhook-signature-previous']).toBeUndefined();
    } finally {
      await receiver.close();
    }
  });

  it('never follows a redirect: a 302 to another address is a failed attempt and that address is never called', async () => {
    const target = await startReceiver(() => 'ok');
    const receiver = await startReceiver(() => 'redirect', { redirectTo: target.url });
    try {
      const key = await newTenant();
      await subscribe(key, receiver.url);
      const test = await call(key, 'POST', '/webhook-subscription/test');
      await eventually(
        () => receiver.received.length,
        (received) => received >= 2,
        { timeoutMs: 20_000, everyMs: 100 },
      );
      const delivery = await deliveryOf(key, test.body.delivery_id);
      expect(delivery.last_attempt).toMatchObject({ status_code: 302, error: 'http_302' });
      expect(target.received).toHaveLength(0);
    } finally {
      await receiver.close();
      await target.close();
    }
  });

  it('order events reach the subscriber in the allowlist only, with the envelope of spec section 6, and the URL shows masked', async () => {
    const receiver = await startReceiver(() => 'ok');
    try {
      const { orderTenant, customerBody, orderBody, waitForOrder, isFinalOrder } = await import('../support/orders.ts');
      const key = await orderTenant();
      const put = await call(key, 'PUT', '/webhook-subscription', {
        body: { url: receiver.url, event_types: ['commerce.order.result_ready.v1'], enabled: true },
      });
      expect(put.status).toBe(201);
      expect((await call(key, 'GET', '/webhook-subscription')).body.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/…\/erce$/);
      await call(key, 'PUT', '/customers/c1', { body: customerBody('+491510000000') });
      const created = await call(key, 'POST', '/orders', { body: orderBody('o-hook', 'c1') });
      await waitForOrder(key, 'o-hook', isFinalOrder);
      await eventually(
        () => receiver.received.length,
        (received) => received >= 1,
        { timeoutMs: 20_000, everyMs: 100 },
      );
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.received).toHaveLength(1);
      const envelope = JSON.parse(receiver.received[0]!.body);
      expect(envelope).toMatchObject({
        event_type: 'commerce.order.result_ready.v1',
        event_version: '1',
        external_order_id: 'o-hook',
        correlation_id: created.body.correlation_id,
        integration_ref: key.tenant,
        data: { result: { business_outcome: 'confirmed', final_order_snapshot: { total: '19.98' } } },
      });
      expect(envelope.occurred_at).toMatch(/Z$/);
      expect(receiver.received[0]!.headers['x-svc-webhook-event-id']).toBe(envelope.event_id);
    } finally {
      await receiver.close();
    }
  });

  it('refuses to save a private or non-https URL in production mode: the test stack allows loopback, so this checks the saved-URL rules', async () => {
    const key = await newTenant();
    const res = await call(key, 'PUT', '/webhook-subscription', { body: { url: 'https://user:pw@hooks.example.com/x', event_types: ALL_TYPES } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ pointer: '/url', message: 'must not contain user information (user:password@)' }]);
    expect(res.body.detail).toBe('The webhook URL is refused: it must not contain user information (user:password@).');
    // A host this offline machine cannot resolve: the sentence names it.
    const nowhere = await call(key, 'PUT', '/webhook-subscription', { body: { url: 'https://nowhere.invalid/x', event_types: ALL_TYPES } });
    expect(nowhere.body.detail).toBe('The webhook URL is refused: nowhere.invalid does not resolve to a public address.');
    expect((await call(key, 'GET', '/webhook-subscription')).status).toBe(404);
    expect((await call(key, 'POST', '/webhook-subscription/test')).status).toBe(404);
  });

  it('sends a test event with no subscription to the live listen sessions alone: no delivery to watch, the event in the feed', async () => {
    const key = await newTenant();
    const session = await call(key, 'POST', '/webhook-listen-sessions', { body: {} });
    expect(session.status).toBe(201);
    const test = await call(key, 'POST', '/webhook-subscription/test');
    expect(test.status).toBe(202);
    expect(test.body).toEqual({ event_id: expect.stringMatching(/^evt_/), delivery_id: null, status: 'queued' });
    const fed = await eventually(
      async () =>
        (await call(key, 'GET', `/webhook-listen-sessions/${session.body.listen_session_id}/events`)).body.data as { event_id: string; payload: string }[],
      (data) => data.some((e) => e.event_id === test.body.event_id),
      { timeoutMs: 20_000, everyMs: 300 },
    );
    expect(JSON.parse(fed.find((e) => e.event_id === test.body.event_id)!.payload)).toMatchObject({ test: true });
    expect((await call(key, 'GET', '/webhook-deliveries')).body.data).toEqual([]);
  });

  it("names each event's cause: the partner's request for the first, then the status event each step acted on", async () => {
    const receiver = await startReceiver(() => 'ok');
    try {
      const key = await orderTenant();
      await subscribe(key, receiver.url);
      await call(key, 'PUT', '/customers/c-cause', { body: customerBody('+4915100000000') });
      const posted = await call(key, 'POST', '/orders', { body: orderBody('o-cause', 'c-cause') });
      expect(posted.status).toBe(201);
      const envelopes = () => receiver.received.map((r) => JSON.parse(r.body)).filter((e: { external_order_id: string }) => e.external_order_id === 'o-cause');
      // Deliveries arrive in any order: wait for all seven (five states, the attempt, the result).
      await eventually(envelopes, (seen) => new Set(seen.map((e: { event_id: string }) => e.event_id)).size >= 7, {
        timeoutMs: 45_000,
        everyMs: 150,
      });
      const byId = new Map<string, any>(envelopes().map((e: { event_id: string }) => [e.event_id, e]));
      const statuses = [...byId.values()].filter((e) => e.event_type === 'commerce.order.status_changed.v1');
      const received = statuses.find((e) => e.data.processing_state === 'received');
      expect(received?.causation_id).toBe(posted.headers.get('x-request-id'));
      const inCall = statuses.find((e) => e.data.processing_state === 'in_call');
      for (const e of statuses.filter((s) => s !== received)) {
        const cause = byId.get(e.causation_id);
        expect(cause?.event_type, `${e.data.processing_state} caused by ${e.causation_id}`).toBe('commerce.order.status_changed.v1');
        expect(cause.data.processing_state).toBe(e.data.previous_state);
      }
      for (const e of [...byId.values()].filter((x) => x.event_type !== 'commerce.order.status_changed.v1')) expect(e.causation_id).toBe(inCall?.event_id);
      // Every delivery carries its event's correlation id as a header, so the receiver's logs join ours.
      for (const r of receiver.received.filter((x) => JSON.parse(x.body).external_order_id === 'o-cause')) {
        expect(r.headers['x-svc-correlation-id']).toBe(JSON.parse(r.body).correlation_id);
      }
    } finally {
      await receiver.close();
    }
  });

  it('shows a secret once: a replay of the creating PUT or of a rotation (same Idempotency-Key) says it was shown and keeps it nowhere', async () => {
    const key = await newTenant();
    const receiver = await startReceiver(() => 'ok');
    const body = { url: receiver.url, event_types: ALL_TYPES, enabled: true };
    await receiver.close();
    const created = await call(key, 'PUT', '/webhook-subscription', { body, idempotencyKey: 'create-once' });
    expect(created.body.secret).toMatch(/^whsec_/);
    const replayed = await call(key, 'PUT', '/webhook-subscription', { body, idempotencyKey: 'create-once' });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.status).toBe(201);
    expect(replayed.body.secret).toBeUndefined();
    expect(replayed.body.secret_already_shown).toBe(true);
    const rotated = await call(key, 'POST', '/webhook-subscription/secret/rotate', { idempotencyKey: 'rotate-once' });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    const rotatedAgain = await call(key, 'POST', '/webhook-subscription/secret/rotate', { idempotencyKey: 'rotate-once' });
    expect(rotatedAgain.body).toMatchObject({ secret_already_shown: true });
    expect(rotatedAgain.body.secret).toBeUndefined();
    const records = await scanByKeyPrefix(`T#${key.tenant}#IDEM#`);
    expect(records.length).toBe(2);
    const kept = JSON.stringify(records);
    expect(kept).not.toContain(created.body.secret);
    expect(kept).not.toContain(rotated.body.secret);
  });

  it('answers a rerun of a rotation whose kept answer was lost with that same rotation, so the secret in use never ends', async () => {
    const key = await newTenant();
    const receiver = await startReceiver(() => 'ok');
    await receiver.close();
    const created = await call(key, 'PUT', '/webhook-subscription', { body: { url: receiver.url, event_types: ALL_TYPES, enabled: true } });
    const rotated = await call(key, 'POST', '/webhook-subscription/secret/rotate', {
      idempotencyKey: 'rotate-lost',
      body: { previous_secret_expires_in: 3600 },
    });
    // The rotation committed but its answer was never kept (a run ended at its deadline): the key is free again.
    for (const record of await scanByKeyPrefix(`T#${key.tenant}#IDEM#`)) {
      await tableClient().send(new DeleteCommand({ TableName: tableName(), Key: { pk: record.pk, sk: record.sk } }));
    }
    const rerun = await call(key, 'POST', '/webhook-subscription/secret/rotate', { idempotencyKey: 'rotate-lost', body: { previous_secret_expires_in: 3600 } });
    expect(rerun.status).toBe(200);
    expect(rerun.body).toEqual(rotated.body);
    const stored = (await tableClient().send(new GetCommand({ TableName: tableName(), Key: { pk: `T#${key.tenant}#WEBHOOK`, sk: 'SUBSCRIPTION' } }))).Item!;
    expect([stored.secret, stored.previous_secret]).toEqual([rotated.body.secret, created.body.secret]);
    const another = await call(key, 'POST', '/webhook-subscription/secret/rotate', { idempotencyKey: 'rotate-next' });
    expect(another.body.secret).not.toBe(rotated.body.secret);
  });
});
