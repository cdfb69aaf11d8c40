/**
 * The partner kit against the real local stack: the partner example (client package only)
 * across the sandbox scenarios with verified webhooks, then the rest of the operations
 * through the client (all of the route table's); every delivered event matches the contract's webhook schemas.
 */

import { createServer } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ClientOptions, CommerceApiError, constructEvent, createCommerceClient, type WebhookEvent } from '#client/index.ts';
import { ROUTES } from '#functions/routes.ts';
import { BASE_PATH, pathPattern } from '#shared/api/routes.ts';
import { WebhookEventSchema } from '#shared/events/event-schemas.ts';
import { EVENT_TYPES } from '#shared/events/event-types.ts';
import { runIntegration } from '../../examples/partner-integration/integration.ts';
import { eventually } from '../support/eventually.ts';
import { CALL_NOW_CONFIG } from '../support/orders.ts';
import { startReceiver } from '../support/receiver.ts';
import { baseUrl, newTenant, type TestKey } from '../support/stack.ts';
import { LATER } from '../support/times.ts';

/** Which operations a client called, from the requests it sent. */
function recordingOptions(key: TestKey, called: Set<string>): ClientOptions {
  return {
    baseUrl,
    keyId: key.keyId,
    secret: key.secret,
    fetch: (input, init) => {
      const url = new URL(String(input));
      const route = ROUTES.find((r) => r.method === init?.method && pathPattern(r.path).test(url.pathname.slice(BASE_PATH.length)));
      if (route) called.add(route.operationId);
      return fetch(input, init);
    },
  };
}

/** A receiver that answers 200 to everything and keeps the raw deliveries. */
async function startSink() {
  const received: { raw: Buffer; headers: Record<string, string | string[] | undefined> }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ raw: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let key: TestKey;
const called = new Set<string>();
beforeAll(async () => {
  key = await newTenant({ config: CALL_NOW_CONFIG });
});

/**
 * The example's own deadline for its orders and for its webhooks (it waits for each in turn),
 * and a test timeout beyond both: a pipeline that stalls fails with the example's own message
 * (which orders never became final, which webhooks never came), not with the runner's timeout.
 */
const INTEGRATION_DEADLINE_MS = 60_000;
const INTEGRATION_TEST = { timeout: 3 * INTEGRATION_DEADLINE_MS };

describe('the partner client on the local stack', () => {
  it('runs the partner example: each sandbox scenario gives its outcome, and every webhook verifies and matches the contract', INTEGRATION_TEST, async () => {
    const report = await runIntegration({ ...recordingOptions(key, called), prefix: 'ex-', timeoutMs: INTEGRATION_DEADLINE_MS });
    expect(report.outcomes).toEqual({
      'ex-order-confirmed': 'confirmed',
      'ex-order-unreachable': 'unreachable',
      'ex-order-declined': 'declined',
      'ex-order-upsell': 'modified',
      'ex-order-writebackFails': 'confirmed',
      'ex-order-invalidNumber': 'invalid_number',
    });
    expect(report.calls['ex-order-unreachable']).toEqual(['no_answer', 'no_answer', 'no_answer']);
    expect(report.refused).toEqual([]);
    // The write-back failure follows its result: it may come after the example has returned.
    await eventually(
      () => report.events.filter((e) => e.event_type === 'commerce.writeback.failed.v1'),
      (seen) => seen.length > 0,
      { timeoutMs: 30_000, everyMs: 200 },
    );
    expect(new Set(report.events.map((e) => e.event_type))).toEqual(new Set(EVENT_TYPES));
    for (const event of report.events) expect(WebhookEventSchema.parse(event), event.event_type).toEqual(event);
    // It made the tenant's subscription, and disables it as it ends: nothing keeps pointing at a receiver that is gone.
    expect((await createCommerceClient(recordingOptions(key, called)).webhooks.getSubscription()).enabled).toBe(false);
  });

  it('leaves a subscription it finds as it found it, and says it received no webhooks', INTEGRATION_TEST, async () => {
    const other = await newTenant({ config: CALL_NOW_CONFIG });
    const client = createCommerceClient(recordingOptions(other, called));
    const sink = await startReceiver(() => 'ok');
    try {
      await client.webhooks.putSubscription({ url: sink.url, event_types: ['commerce.order.result_ready.v1'], enabled: true });
      const before = await client.webhooks.getSubscription();
      const report = await runIntegration({ ...recordingOptions(other, called), prefix: 'kept-', timeoutMs: INTEGRATION_DEADLINE_MS });
      expect(report.webhooksSkipped).toMatch(/subscription exists/);
      expect(report.events).toEqual([]);
      const after = await client.webhooks.getSubscription();
      expect({ url: after.url, event_types: after.event_types, enabled: after.enabled, rotated: after.secret_last_rotated_at }).toEqual({
        url: before.url,
        event_types: before.event_types,
        enabled: before.enabled,
        rotated: before.secret_last_rotated_at,
      });
    } finally {
      await sink.close();
    }
  });

  it('calls the other operations, so that every operation of the route table has run through the client', async () => {
    const client = createCommerceClient(recordingOptions(key, called));
    const capabilities = await client.capabilities.get();
    expect(capabilities.base_path).toBe(BASE_PATH);
    // Every answer carries its request id for support, and serialises as the service sent it.
    expect(capabilities.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(capabilities)).not.toContain('requestId');
    expect((await client.configuration.getEffective()).readiness).toBe('ready');
    const products = [];
    for await (const product of client.products.list({ limit: 1 })) products.push(product.external_product_id);
    expect(products).toEqual(['ex-coffee']);
    expect((await client.products.get('ex-coffee')).variants).toHaveLength(2);
    expect((await client.customers.get('ex-customer-confirmed')).phone_masked).toMatch(/0$/);
    const rules = [];
    for await (const rule of client.salesRules.list()) rules.push(rule.external_rule_id);
    expect(rules).toEqual(['ex-upsell-1kg']);
    expect((await client.salesRules.get('ex-upsell-1kg')).rule_type).toBe('upsell');
    const completed = [];
    for await (const order of client.orders.list({ processing_state: 'completed', limit: 2 })) completed.push(order.external_order_id);
    expect(completed).toHaveLength(6);

    const later = {
      order_kind: 'standard' as const,
      external_order_id: 'ex-later',
      external_customer_id: 'ex-customer-confirmed',
      contact_not_before: LATER,
    };
    const items = [{ external_variant_id: 'ex-beans-250g', quantity: 1, price: '9.99', currency: 'EUR' }];
    await client.orders.create({ ...later, items, contact_permission: { status: 'granted' }, source_version: '1' });
    expect((await client.orders.update('ex-later', { source_version: '2', priority: 7 })).outcome).toBe('updated');
    expect((await client.orders.cancel('ex-later', { reason: 'customer_request' })).processing_state).toBe('cancelled');
    expect((await client.orders.get('ex-later')).processing_state).toBe('cancelled');

    // The example's receiver has stopped: point the subscription at a live one.
    const sink = await startSink();
    await client.webhooks.putSubscription({ url: sink.url, event_types: [...EVENT_TYPES], enabled: true });
    expect((await client.webhooks.getSubscription()).enabled).toBe(true);
    const test = await client.webhooks.test();
    const deliveryId = test.delivery_id;
    if (deliveryId === null) throw new Error("a subscribed tenant's test event has a delivery to watch");
    const delivered = await eventually(
      async () => {
        for await (const d of client.webhooks.deliveries({ status: 'delivered' })) if (d.delivery_id === deliveryId) return d;
        return undefined;
      },
      (d) => d !== undefined,
      { timeoutMs: 30_000, everyMs: 250 },
    );
    expect(delivered?.event_id).toBe(test.event_id);
    expect((await client.webhooks.getDelivery(deliveryId)).attempt_log).toEqual([expect.objectContaining({ attempt: 1, status_code: 200 })]);
    expect((await client.webhooks.replay(deliveryId)).replay_of).toBe(deliveryId);
    // Nothing dead-lettered since a minute ago: nothing to re-send.
    expect(await client.webhooks.recover({ since: new Date(Date.now() - 60_000).toISOString() })).toEqual({ recovered: [], more: false });
    const session = await client.webhooks.listen({ event_types: ['commerce.order.status_changed.v1'] });
    expect(session.listen_session_id).toMatch(/^lsn_/);
    expect(await client.webhooks.listenFeed(session.listen_session_id)).toMatchObject({ data: [], next_after: null });
    const rotated = await client.webhooks.rotateSecret({ previous_secret_expires_in: 60 });
    expect(rotated.secret).toMatch(/^whsec_/);

    expect((await client.products.archive('ex-coffee')).status).toBe('archived');
    expect((await client.salesRules.archive('ex-upsell-1kg')).status).toBe('archived');
    expect((await client.customers.anonymize('ex-customer-declined')).external_customer_id).toBe('ex-customer-declined');
    const missing = await client.orders.get('ex-no-such-order').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CommerceApiError);
    expect(missing).toMatchObject({
      status: 404,
      code: 'resource_not_found',
      requestId: expect.any(String),
      docUrl: `${new URL(baseUrl).origin}/docs#problem-resource_not_found`,
    });

    expect([...called].sort()).toEqual(ROUTES.map((r) => r.operationId).sort());
    await sink.close();
  });

  it('verifies a delivery signed during a rotation with either secret (a receiver mid-rotation)', async () => {
    const tenant = await newTenant({ config: CALL_NOW_CONFIG });
    const client = createCommerceClient({ baseUrl, keyId: tenant.keyId, secret: tenant.secret });
    const sink = await startSink();
    try {
      const first = await client.webhooks.putSubscription({ url: sink.url, event_types: ['commerce.order.status_changed.v1'], enabled: true });
      const second = await client.webhooks.rotateSecret();
      await client.webhooks.test();
      await eventually(
        () => sink.received.length,
        (n) => n > 0,
        { timeoutMs: 30_000, everyMs: 100 },
      );
      const { raw, headers } = sink.received[0]!;
      const withOld: WebhookEvent = constructEvent(raw, headers, [first.secret!]);
      expect(withOld.test).toBe(true);
      expect(constructEvent(raw, headers, [second.secret!]).event_id).toBe(withOld.event_id);
    } finally {
      await sink.close();
    }
  });
});
