/**
 * Every sandbox scenario of contract-decisions section 7, from POST /orders to GET /result
 * and GET /calls through the local gateway, with the real stream processor and call scheduler.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { customerBody, isFinalOrder, orderBody, orderEventTypes, orderTenant, waitForOrder } from '../support/orders.ts';
import { call, type TestKey } from '../support/stack.ts';

const SCENARIOS = [
  { digit: '0', calls: ['answered'], outcome: 'confirmed', confirmed: true, total: '19.98' },
  { digit: '1', calls: ['no_answer', 'no_answer', 'no_answer'], outcome: 'unreachable', confirmed: false, total: '19.98', reason: 'unreachable' },
  { digit: '2', calls: ['no_answer', 'answered'], outcome: 'confirmed', confirmed: true, total: '19.98' },
  { digit: '3', calls: ['answered'], outcome: 'declined', confirmed: false, total: '19.98', reason: 'customer_declined' },
  {
    digit: '4',
    calls: ['answered'],
    outcome: 'modified',
    confirmed: true,
    total: '49.00',
    items: [{ external_variant_id: 'beans-1kg', quantity: 2, price: '24.50' }],
  },
  { digit: '5', calls: ['busy', 'answered'], outcome: 'confirmed', confirmed: true, total: '19.98' },
  { digit: '6', calls: ['answered'], outcome: 'confirmed', confirmed: true, total: '19.98' },
  { digit: '7', calls: ['answered'], outcome: 'confirmed', confirmed: true, total: '19.98' },
  { digit: '8', calls: ['answered'], outcome: 'confirmed', confirmed: true, total: '19.98', writebackFails: true },
  { digit: '9', calls: ['invalid_number'], outcome: 'invalid_number', confirmed: false, total: '19.98', reason: 'invalid_number' },
];

let key: TestKey;
beforeAll(async () => {
  key = await orderTenant();
  const rule = {
    rule_type: 'upsell',
    priority: 5,
    applies_to: { external_variant_ids: ['beans'] },
    action: { suggest_variant: 'beans-1kg' },
    source_version: '1',
  };
  expect((await call(key, 'PUT', '/sales-rules/upsell-1', { body: rule })).status).toBe(200);
});

describe.concurrent.each(SCENARIOS)('sandbox scenario $digit', (s) => {
  it(`calls ${s.calls.join(', ')} and ends ${s.outcome}`, async ({ expect }) => {
    const customer = `cust-${s.digit}`;
    expect((await call(key, 'PUT', `/customers/${customer}`, { body: customerBody(`+4915100000${s.digit}`) })).status).toBe(200);
    const created = await call(key, 'POST', '/orders', { body: orderBody(`order-${s.digit}`, customer) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ external_order_id: `order-${s.digit}`, order_kind: 'standard', processing_state: 'received', outcome: 'created' });
    expect(created.body.correlation_id).toMatch(/^cor_/);

    const order = await waitForOrder(key, `order-${s.digit}`, isFinalOrder);
    expect(order).toMatchObject({ processing_state: 'completed', call_attempts: s.calls.length, correlation_id: created.body.correlation_id });

    const result = await call(key, 'GET', `/orders/order-${s.digit}/result`);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      external_order_id: `order-${s.digit}`,
      processing_state: 'completed',
      call_disposition: s.calls.at(-1),
      business_outcome: s.outcome,
      final_order_snapshot: {
        currency: 'EUR',
        total: s.total,
        confirmed: s.confirmed,
        reason: s.reason ?? null,
        items: s.items ?? [{ external_variant_id: 'beans', quantity: 2, price: '9.99' }],
      },
    });

    const calls = await call(key, 'GET', `/orders/order-${s.digit}/calls`);
    expect(calls.body.data.map((a: { attempt: number; call_disposition: string }) => [a.attempt, a.call_disposition])).toEqual(
      s.calls.map((c, i) => [i + 1, c]),
    );
    expect(calls.body.next_cursor).toBeNull();
    expect(calls.body.reports_policy).toMatchObject({
      recordings: { available: false },
      transcripts: { available: true },
      how_to_request: expect.any(String),
    });
    // What the simulated customer heard and pressed: the conversation a live customer hears.
    const pressed = ({ '3': '2', '4': '3' } as Record<string, string>)[s.digit] ?? '1';
    for (const attempt of calls.body.data as { call_disposition: string; transcript: { speaker: string; text?: string; key?: string }[] }[]) {
      if (attempt.call_disposition !== 'answered') {
        expect(attempt.transcript).toEqual([]);
        continue;
      }
      expect(attempt.transcript).toEqual([
        { speaker: 'service', text: `Guten Tag, hier ist ${key.tenant}. Wir rufen wegen Ihrer Bestellung an. Um sie zu hören, drücken Sie die 1.` },
        { speaker: 'customer', key: '1' },
        { speaker: 'service', text: expect.stringContaining('Ihre Bestellung vom') },
        { speaker: 'customer', key: pressed },
        { speaker: 'service', text: expect.stringContaining('Auf Wiederhören') },
      ]);
      const opening = attempt.transcript[2]!.text!.replace(/[\u00a0\u202f]/g, ' ');
      expect(opening).toContain('2 mal Coffee beans, zu je 9,99 €.');
      expect(opening).toContain('Der Gesamtbetrag ist 19,98 €.');
      // The upsell rule applies to every order here: 3 takes the 1 kg bag.
      expect(opening).toContain('Um stattdessen Coffee beans für 24,50 € zu nehmen, drücken Sie die 3.');
    }

    const types = await orderEventTypes(key.tenant, `order-${s.digit}`);
    expect(types.filter((t) => t === 'commerce.call.attempt_completed.v1')).toHaveLength(s.calls.length);
    expect(types.filter((t) => t === 'commerce.order.result_ready.v1')).toHaveLength(1);
    if (s.writebackFails) {
      await expect
        .poll(async () => (await orderEventTypes(key.tenant, `order-${s.digit}`)).includes('commerce.writeback.failed.v1'), { timeout: 10_000 })
        .toBe(true);
    } else {
      expect(types).not.toContain('commerce.writeback.failed.v1');
    }
  });
});
