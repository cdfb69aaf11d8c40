/**
 * The service's metrics as CloudWatch would read them: embedded-metric-format lines written
 * by the handlers while orders are processed and their events delivered, with the names,
 * units and dimensions the dashboard and alarms use, and never a tenant or a phone number.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { METRIC, METRICS_NAMESPACE, SERVICE_NAME } from '#shared/observability/metric-names.ts';
import { eventually } from '../support/eventually.ts';
import { customerBody, orderBody, orderTenant, waitForOrder } from '../support/orders.ts';
import { startReceiver } from '../support/receiver.ts';
import { call } from '../support/stack.ts';

interface Point {
  name: string;
  unit: string;
  value: number;
  dimensions: Record<string, string>;
}

/** Every metric data point in the handler output so far. */
function points(): Point[] {
  return readFileSync(inject('logFile'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{"_aws"'))
    .flatMap((line) => {
      const emf = JSON.parse(line) as Record<string, any>;
      const directive = emf._aws.CloudWatchMetrics[0];
      expect(directive.Namespace).toBe(METRICS_NAMESPACE);
      const dimensionNames = directive.Dimensions[0] as string[];
      const dimensions = Object.fromEntries(dimensionNames.map((d) => [d, String(emf[d])]));
      return (directive.Metrics as { Name: string; Unit: string }[]).map((m) => ({ name: m.Name, unit: m.Unit, value: Number(emf[m.Name]), dimensions }));
    });
}

const has = (name: string, unit: string, dimensions: Record<string, string>) => (ps: Point[]) =>
  ps.some((p) => p.name === name && p.unit === unit && Object.entries({ service: SERVICE_NAME, ...dimensions }).every(([k, v]) => p.dimensions[k] === v));

describe('metrics', () => {
  it('counts requests, orders, calls and deliveries with low-cardinality dimensions only', async () => {
    const receiver = await startReceiver(() => 'ok');
    try {
      const key = await orderTenant();
      const subscribed = await call(key, 'PUT', '/webhook-subscription', {
        body: { url: receiver.url, event_types: ['commerce.order.result_ready.v1'], enabled: true },
      });
      expect(subscribed.status).toBe(201);
      await call(key, 'PUT', '/customers/m-1', { body: customerBody('+4915100000000') });
      expect((await call(key, 'POST', '/orders', { body: orderBody('m-order', 'm-1') })).status).toBe(201);
      expect((await call(key, 'GET', '/orders/no-such-order')).status).toBe(404);
      await waitForOrder(key, 'm-order', (o) => o.processing_state === 'completed');
      await eventually(
        () => receiver.received.length,
        (n) => n > 0,
        { timeoutMs: 30_000, everyMs: 200 },
      );

      const expected = [
        has(METRIC.requests, 'Count', { route: 'createOrder', status_class: '2xx' }),
        has(METRIC.requests, 'Count', { route: 'getOrder', status_class: '4xx' }),
        has(METRIC.ordersFinal, 'Count', { state: 'completed', business_outcome: 'confirmed' }),
        has(METRIC.callAttempts, 'Count', { disposition: 'answered' }),
        has(METRIC.fanOutLag, 'Milliseconds', {}),
        has(METRIC.deliveryAttempts, 'Count', { outcome: 'delivered' }),
        has(METRIC.deliveryLatency, 'Milliseconds', {}),
        has(METRIC.attemptsPerDelivery, 'Count', {}),
      ];
      const seen = await eventually(points, (ps) => expected.every((check) => check(ps)), { timeoutMs: 30_000, everyMs: 250 });
      for (const [i, check] of expected.entries()) expect(check(seen), `expected metric ${i}`).toBe(true);

      const allowed = new Set(['service', 'route', 'status_class', 'state', 'business_outcome', 'disposition', 'outcome']);
      for (const p of seen) {
        for (const [name, value] of Object.entries(p.dimensions)) {
          expect(allowed.has(name), `dimension ${name} of ${p.name}`).toBe(true);
          expect(value).not.toContain(key.tenant);
          expect(value).not.toMatch(/\d{6,}/);
        }
      }
    } finally {
      await receiver.close();
    }
  });
});
