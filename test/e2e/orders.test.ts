import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { readOrder } from '#shared/orders/order-store.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { customerBody, isFinalOrder, orderBody, orderTenant, waitForOrder, wholeHistory } from '../support/orders.ts';
import { call, type TestKey } from '../support/stack.ts';
import { dayFromLater, LATER, LATER_UTC } from '../support/times.ts';

/** The order's history as the history reader pages it, and the revision of its newest state change as the order reads back. */
async function storedHistory(key: TestKey, id: string) {
  const pk = `T#${key.tenant}#ORDER#${id}`;
  const order = (await readOrder(key.tenant, id, true))!;
  return { entries: await wholeHistory(pk, 2), statusRevision: order.status_revision };
}

describe('orders', () => {
  it('cancel racing the processing 50 times: cancelled or completed, never both, and its history is one chain with exactly one final state', async () => {
    const key = await orderTenant();
    await call(key, 'PUT', '/customers/racer', { body: customerBody('+491510000000') });
    const outcomes = { cancelled: 0, completed: 0 };
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const id = `race-${round}-${i}`;
          expect((await call(key, 'POST', '/orders', { body: orderBody(id, 'racer') })).status).toBe(201);
          await new Promise((r) => setTimeout(r, (i % 5) * 60));
          const cancel = await call(key, 'POST', `/orders/${id}/cancel`, { body: { reason: 'customer_request' } });
          const order = await waitForOrder(key, id, isFinalOrder);
          if (cancel.status === 200) {
            expect(order.processing_state).toBe('cancelled');
            outcomes.cancelled++;
          } else {
            expect(cancel.status).toBe(409);
            expect(cancel.body.code).toBe('invalid_state_transition');
            expect(order.processing_state).toBe('completed');
            outcomes.completed++;
          }
          const { entries, statusRevision } = await storedHistory(key, id);
          // One chain from received to the order's state: each change starts where the one before ended.
          expect(entries.map((e) => e.from)).toEqual([null, ...entries.slice(0, -1).map((e) => e.to)]);
          expect(entries.at(-1)).toMatchObject({ to: order.processing_state, revision: statusRevision });
          expect(entries.filter((e) => e.to === 'cancelled' || e.to === 'completed')).toHaveLength(1);
        }),
      );
    }
    expect(outcomes.cancelled + outcomes.completed).toBe(50);
    expect(outcomes.cancelled).toBeGreaterThan(0);
  });

  it('archiving a product rejects an active order using it, and keeps one valid when a replacement rule applies', async () => {
    const key = await orderTenant();
    await call(key, 'PUT', '/customers/c1', { body: customerBody('+491510000000') });
    const mugOrder = (id: string) =>
      orderBody(id, 'c1', { items: [{ external_variant_id: 'mug', quantity: 1, price: '5.00', currency: 'EUR' }], contact_not_before: LATER });
    await call(key, 'POST', '/orders', { body: mugOrder('uses-mug') });
    await waitForOrder(key, 'uses-mug', (o) => o.processing_state === 'scheduled');
    expect((await call(key, 'DELETE', '/products/mug')).status).toBe(200);
    const rejected = await waitForOrder(key, 'uses-mug', isFinalOrder);
    expect(rejected).toMatchObject({ processing_state: 'rejected', state_reason: 'variant_archived' });

    const other = await orderTenant();
    await call(other, 'PUT', '/customers/c1', { body: customerBody('+491510000000') });
    await call(other, 'PUT', '/sales-rules/mug-to-beans', {
      body: { rule_type: 'replacement', applies_to: { external_variant_ids: ['mug'] }, action: { replacement_variant: 'beans' }, source_version: '1' },
    });
    await call(other, 'POST', '/orders', { body: mugOrder('uses-mug') });
    await waitForOrder(other, 'uses-mug', (o) => o.processing_state === 'scheduled');
    await call(other, 'DELETE', '/products/mug');
    await new Promise((r) => setTimeout(r, 2000));
    expect((await call(other, 'GET', '/orders/uses-mug')).body.processing_state).toBe('scheduled');
  });

  it('PATCH requalifies at once, refuses stale versions and final orders; cancel is idempotent and refuses completed orders', async () => {
    const key = await orderTenant();
    await call(key, 'PUT', '/customers/c1', { body: customerBody('+491510000000') });
    await call(key, 'POST', '/orders', { body: orderBody('later', 'c1', { contact_not_before: LATER }) });
    const scheduled = await waitForOrder(key, 'later', (o) => o.processing_state === 'scheduled');
    expect(scheduled.next_contact_at).toBe(LATER_UTC);

    const patched = await call(key, 'PATCH', '/orders/later', {
      body: { source_version: '2', priority: 7, items: [{ external_variant_id: 'beans', quantity: 3, price: '9.99', currency: 'EUR' }] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ processing_state: 'validated', outcome: 'updated' });
    expect(patched.body.correlation_id).not.toBe(scheduled.correlation_id);
    const rescheduled = await waitForOrder(key, 'later', (o) => o.processing_state === 'scheduled');
    expect(rescheduled).toMatchObject({ priority: 7, items: [{ quantity: 3 }] });

    const tooMany = await call(key, 'PATCH', '/orders/later', {
      body: { source_version: '3', items: [{ external_variant_id: 'beans', quantity: 11, price: '9.99', currency: 'EUR' }] },
    });
    expect(tooMany.body.processing_state).toBe('rejected');
    expect((await call(key, 'GET', '/orders/later')).body.state_reason).toBe('quantity_out_of_range');
    const stale = await call(key, 'PATCH', '/orders/later', { body: { source_version: '1', priority: 1 } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('stale_source_version');
    const final = await call(key, 'PATCH', '/orders/later', { body: { source_version: '9', priority: 1 } });
    expect(final.status).toBe(409);
    expect(final.body.code).toBe('invalid_state_transition');
    expect((await call(key, 'POST', '/orders/later/cancel')).status).toBe(409);

    await call(key, 'POST', '/orders', { body: orderBody('to-cancel', 'c1', { contact_not_before: LATER }) });
    const first = await call(key, 'POST', '/orders/to-cancel/cancel', { body: { reason: 'duplicate' } });
    expect(first.body).toMatchObject({ processing_state: 'cancelled', outcome: 'cancelled' });
    const again = await call(key, 'POST', '/orders/to-cancel/cancel', { body: { reason: 'duplicate' } });
    expect(again.status).toBe(200);
    expect(again.body.processing_state).toBe('cancelled');
    expect((await call(key, 'GET', '/orders/to-cancel')).body.state_reason).toBe('duplicate');
  });

  it('upserts by external_order_id: unchanged for the same version, updated for a newer one, stale for an older one; order_kind never changes', async () => {
    const key = await orderTenant();
    await call(key, 'PUT', '/customers/c1', { body: customerBody('+491510000000') });
    const body = orderBody('up', 'c1', { source_version: '5', contact_not_before: LATER });
    const created = await call(key, 'POST', '/orders', { body });
    await waitForOrder(key, 'up', (o) => o.processing_state === 'scheduled');
    const same = await call(key, 'POST', '/orders', { body });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ outcome: 'unchanged', processing_state: 'scheduled', correlation_id: created.body.correlation_id });
    const newer = await call(key, 'POST', '/orders', { body: { ...body, source_version: '6', priority: 3 } });
    expect(newer.body).toMatchObject({ outcome: 'updated', processing_state: 'validated' });
    expect((await call(key, 'POST', '/orders', { body: { ...body, source_version: '4' } })).body).toMatchObject({
      code: 'stale_source_version',
      current_source_version: '6',
    });
    const kind = await call(key, 'POST', '/orders', {
      body: {
        ...body,
        source_version: '7',
        order_kind: 'repurchase_intent',
        contact_permission: { status: 'granted', basis: 'prior_purchase', reference: 'r' },
      },
    });
    expect(kind.status).toBe(422);
    expect(kind.body.errors[0].pointer).toBe('/order_kind');
  });

  it('validates orders with pointers: repurchase intents need basis and reference, confidence in [0, 1], at most 250 items of one currency', async () => {
    const key = await orderTenant();
    const bad = await call(key, 'POST', '/orders', {
      body: orderBody('bad', 'c1', {
        order_kind: 'repurchase_intent',
        confidence: '1.5',
        items: [{ external_variant_id: 'beans', quantity: 0, price: '9.999', currency: 'EUR' }],
      }),
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      '/confidence',
      '/contact_permission/basis',
      '/contact_permission/reference',
      '/items/0/price',
      '/items/0/quantity',
    ]);
    const line = { external_variant_id: 'beans', quantity: 1, price: '1.00', currency: 'EUR' };
    const many = await call(key, 'POST', '/orders', { body: orderBody('many', 'c1', { items: Array.from({ length: 251 }, () => line) }) });
    expect(many.status).toBe(422);
    expect(many.body.errors[0].pointer).toBe('/items');
    const mixed = await call(key, 'POST', '/orders', { body: orderBody('mixed', 'c1', { items: [line, { ...line, currency: 'USD' }] }) });
    expect(mixed.body.errors).toEqual([{ pointer: '/items/1/currency', message: 'must be EUR, the currency of the first item' }]);
    expect((await call(key, 'GET', '/orders/bad')).status).toBe(404);
    expect((await call(key, 'GET', '/orders/bad/result')).status).toBe(404);
  });

  it('gives a PATCH the variant-index grace a new order gets: a variant imported a moment ago does not reject the order', async () => {
    const key = await orderTenant();
    await call(key, 'PUT', '/customers/c-patch', { body: customerBody('+4915100000000') });
    const later = new Date(Date.now() + 24 * 3600_000).toISOString();
    await call(key, 'POST', '/orders', { body: orderBody('o-patch', 'c-patch', { contact_not_before: later }) });
    await waitForOrder(key, 'o-patch', (o) => o.processing_state === 'scheduled');
    // A variant whose product was just imported (or never will be): within the grace it is looked up again later.
    const items = [{ external_variant_id: 'imported-a-moment-ago', quantity: 1, price: '9.99', currency: 'EUR' }];
    const patched = await call(key, 'PATCH', '/orders/o-patch', { body: { source_version: '2', items } });
    expect(patched.status).toBe(200);
    expect(patched.body.processing_state).toBe('validated');
  });

  it('answers every partner time in UTC with Z, and refuses a contact time past the horizon or past year 9999 in UTC with a pointer', async () => {
    const key = await orderTenant();
    const consent = { status: 'granted', proof: { source: 'checkout', reference: 'p', collected_at: '2026-01-01T01:30:00.25+01:30' } };
    expect((await call(key, 'PUT', '/customers/c-offset', { body: customerBody('+4915100000000', { consent }) })).status).toBe(200);
    expect((await call(key, 'GET', '/customers/c-offset')).body.consent.proof.collected_at).toBe('2026-01-01T00:00:00.250Z');
    const placed = await call(key, 'POST', '/orders', {
      body: orderBody('o-offset', 'c-offset', { contact_not_before: `${dayFromLater(-1)}T23:00:00-10:00` }),
    });
    expect(placed.status).toBe(201);
    expect((await call(key, 'GET', '/orders/o-offset')).body.contact_not_before).toBe(LATER_UTC);
    const patched = await call(key, 'PATCH', '/orders/o-offset', { body: { source_version: '2', contact_not_before: `${dayFromLater(1)}T00:00:00+09:00` } });
    expect(patched.status).toBe(200);
    expect((await call(key, 'GET', '/orders/o-offset')).body.contact_not_before).toBe(LATER_UTC.replace('T09:', 'T15:'));
    const tooLate = await call(key, 'POST', '/orders', { body: orderBody('o-year-10000', 'c-offset', { contact_not_before: '9999-12-31T23:00:00-05:00' }) });
    expect(tooLate.status).toBe(422);
    expect(tooLate.body.errors).toEqual([{ pointer: '/contact_not_before', message: 'must be no later than 9999-12-31T23:59:59.999Z in UTC' }]);
    // The horizon: a year and a day ahead is refused, on creation and on a PATCH, and nothing is written.
    const pastHorizon = new Date(Date.now() + 367 * 86_400_000).toISOString();
    const farOrder = await call(key, 'POST', '/orders', { body: orderBody('o-far', 'c-offset', { contact_not_before: pastHorizon }) });
    const farPatch = await call(key, 'PATCH', '/orders/o-offset', { body: { source_version: '3', contact_not_before: pastHorizon } });
    for (const far of [farOrder, farPatch]) {
      expect([far.status, far.body.errors]).toEqual([422, [{ pointer: '/contact_not_before', message: 'must be at most 366 days after the request' }]]);
    }
    expect((await call(key, 'GET', '/orders/o-far')).status).toBe(404);
    expect((await call(key, 'GET', '/orders/o-offset')).body.contact_not_before).toBe(LATER_UTC.replace('T09:', 'T15:'));
  });

  it('rejects an order placed for an erased customer and keeps nothing of them in it', async () => {
    const key = await orderTenant();
    await call(key, 'PUT', '/customers/c-gone', { body: customerBody('+4915100000000') });
    expect((await call(key, 'POST', '/customers/c-gone/anonymize')).status).toBe(200);
    const body = orderBody('o-after-erasure', 'c-gone', {
      order_kind: 'repurchase_intent',
      contact_permission: { status: 'granted', basis: 'prior_purchase', reference: 'order-4711' },
    });
    expect((await call(key, 'POST', '/orders', { body })).status).toBe(201);
    const rejected = await waitForOrder(key, 'o-after-erasure', (o) => o.processing_state === 'rejected');
    expect(rejected.state_reason).toBe('customer_anonymized');
    expect(rejected.contact_permission).toEqual({ status: 'granted', basis: 'prior_purchase' });
    const stored = await tableClient().send(new GetCommand({ TableName: tableName(), Key: { pk: `T#${key.tenant}#ORDER#o-after-erasure`, sk: 'ORDER' } }));
    expect(JSON.stringify(stored.Item)).not.toContain('order-4711');
  });

  it('tells an unknown order from one that ended without a result and one still on its way, when its result is asked for', async () => {
    const key = await orderTenant();
    await call(key, 'PUT', '/customers/c-later', { body: customerBody('+4915100000000') });
    const unknown = await call(key, 'GET', '/orders/never-placed/result');
    expect(unknown.status).toBe(404);
    expect(unknown.body.result_expected).toBeUndefined();
    // Contact no sooner than in a day: the order waits, scheduled.
    const later = new Date(Date.now() + 24 * 3600_000).toISOString();
    await call(key, 'POST', '/orders', { body: orderBody('o-waiting', 'c-later', { contact_not_before: later }) });
    const waiting = await waitForOrder(key, 'o-waiting', (o) => o.processing_state === 'scheduled');
    expect(waiting.processing_state).toBe('scheduled');
    expect((await call(key, 'GET', '/orders/o-waiting/result')).body).toMatchObject({
      code: 'resource_not_found',
      processing_state: 'scheduled',
      result_expected: true,
    });
    await call(key, 'POST', '/orders/o-waiting/cancel', { body: { reason: 'duplicate' } });
    const cancelled = await call(key, 'GET', '/orders/o-waiting/result');
    expect(cancelled.status).toBe(404);
    expect(cancelled.body).toMatchObject({ code: 'resource_not_found', processing_state: 'cancelled', result_expected: false });
  });

  it('rejects orders of unknown customers, withdrawn consent and unknown variants, with the reason in the order', async () => {
    const key = await orderTenant();
    await call(key, 'PUT', '/customers/withdrawn', { body: customerBody('+491510000000', { consent: { status: 'withdrawn' } }) });
    await call(key, 'PUT', '/customers/ok', { body: customerBody('+491510000000') });
    await call(key, 'POST', '/orders', { body: orderBody('no-customer', 'nobody') });
    await call(key, 'POST', '/orders', { body: orderBody('no-consent', 'withdrawn') });
    await call(key, 'POST', '/orders', {
      body: orderBody('no-variant', 'ok', { items: [{ external_variant_id: 'ghost', quantity: 1, price: '1.00', currency: 'EUR' }] }),
    });
    for (const [id, reason] of [
      ['no-customer', 'customer_not_found'],
      ['no-consent', 'consent_not_granted'],
      ['no-variant', 'unknown_variant'],
    ]) {
      expect(await waitForOrder(key, id!, isFinalOrder)).toMatchObject({ processing_state: 'rejected', state_reason: reason });
    }
    // A state filter lists in order of last change, then id.
    const rejected = (await call(key, 'GET', '/orders', { query: { processing_state: 'rejected' } })).body.data as {
      external_order_id: string;
      updated_at: string;
    }[];
    const byChange = [...rejected].sort((a, b) => a.updated_at.localeCompare(b.updated_at) || a.external_order_id.localeCompare(b.external_order_id));
    expect(rejected.map((o) => o.external_order_id)).toEqual(byChange.map((o) => o.external_order_id));
    expect(rejected.map((o) => o.external_order_id).sort()).toEqual(['no-consent', 'no-customer', 'no-variant']);
  });

  it('anonymizing a customer erases the contact permission reference from their orders, rejects active ones and later ones', async () => {
    const key = await orderTenant();
    await call(key, 'PUT', '/customers/gone', { body: customerBody('+491510000000') });
    const permission = { status: 'granted', basis: 'prior_purchase', reference: 'consent-doc-4711' };
    await call(key, 'POST', '/orders', {
      body: orderBody('active', 'gone', { order_kind: 'repurchase_intent', contact_permission: permission, contact_not_before: LATER }),
    });
    await waitForOrder(key, 'active', (o) => o.processing_state === 'scheduled');
    expect((await call(key, 'POST', '/customers/gone/anonymize')).status).toBe(200);
    const scrubbed = await waitForOrder(key, 'active', isFinalOrder);
    expect(scrubbed).toMatchObject({
      processing_state: 'rejected',
      state_reason: 'customer_anonymized',
      contact_permission: { status: 'granted', basis: 'prior_purchase' },
    });
    expect(JSON.stringify(scrubbed)).not.toContain('consent-doc-4711');
    await call(key, 'POST', '/orders', { body: orderBody('after', 'gone') });
    expect(await waitForOrder(key, 'after', isFinalOrder)).toMatchObject({ processing_state: 'rejected', state_reason: 'customer_anonymized' });
  });

  it('keeps an order with the customer it was created for: a resubmission naming another customer is 422, so erasing either customer finds the order where it is', async () => {
    const key = await orderTenant();
    await call(key, 'PUT', '/customers/first', { body: customerBody('+491510000010') });
    await call(key, 'PUT', '/customers/second', { body: customerBody('+491510000020') });
    const permission = { status: 'granted', basis: 'prior_purchase', reference: 'consent-doc-first' };
    const body = (customer: string, version: string) =>
      orderBody('moving', customer, { order_kind: 'repurchase_intent', contact_permission: permission, contact_not_before: LATER, source_version: version });
    expect((await call(key, 'POST', '/orders', { body: body('first', '1') })).status).toBe(201);
    await waitForOrder(key, 'moving', (o) => o.processing_state === 'scheduled');

    const moved = await call(key, 'POST', '/orders', { body: body('second', '2') });
    expect(moved.status).toBe(422);
    expect(moved.body.errors).toEqual([expect.objectContaining({ pointer: '/external_customer_id' })]);
    expect((await call(key, 'GET', '/orders/moving')).body).toMatchObject({ external_customer_id: 'first', source_version: '1' });

    // Erasing the other customer leaves the order alone; erasing its own customer reaches it.
    expect((await call(key, 'POST', '/customers/second/anonymize')).status).toBe(200);
    expect((await call(key, 'GET', '/orders/moving')).body.processing_state).toBe('scheduled');
    expect((await call(key, 'POST', '/customers/first/anonymize')).status).toBe(200);
    const erased = await waitForOrder(key, 'moving', isFinalOrder);
    expect(erased).toMatchObject({ processing_state: 'rejected', state_reason: 'customer_anonymized' });
    expect(JSON.stringify(erased)).not.toContain('consent-doc-first');
  });
});
