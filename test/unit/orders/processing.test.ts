/**
 * Order processing on in-memory ports: the domain's path from `received` to a final state,
 * with no table, queue or clock of its own.
 */
import { describe, expect, it } from 'vitest';
import { sandboxDialer } from '#shared/calls/call-platform.ts';
import type { StoredCustomer } from '#shared/customers/customers.ts';
import { RevisionConflict } from '#shared/errors.ts';
import { applyOrderChange, type OrderRepository, type StoredOrder } from '#shared/orders/order.ts';
import { orderProcessing, type ProcessingPorts } from '#shared/orders/processing.ts';
import type { ResolvedVariant } from '#shared/orders/qualification.ts';
import { TenantConfigSchema } from '#shared/tenants/config.ts';

/** Noon in Berlin on a Wednesday: inside every calling window. */
const NOON = new Date('2026-11-25T11:00:00Z');

/** Orders in a map, with the table's compare-and-set on the revision; every item written alongside is kept. */
function memoryOrders(): OrderRepository & { items: object[]; orders: Map<string, StoredOrder> } {
  const orders = new Map<string, StoredOrder>();
  const items: object[] = [];
  return {
    orders,
    items,
    read: async (tenant, id) => orders.get(`${tenant}/${id}`),
    write: async (order, change, now) => {
      const key = `${order.tenant}/${order.external_order_id}`;
      if (orders.get(key)?.revision !== order.revision) throw new RevisionConflict('changed');
      const { next, items: written } = applyOrderChange(order, change, now);
      orders.set(key, next);
      items.push(...written);
      return next;
    },
  };
}

function order(id: string, variant = 'beans'): StoredOrder {
  const at = NOON.toISOString();
  return {
    pk: `T#acme#ORDER#${id}`,
    sk: 'ORDER',
    tenant: 'acme',
    external_order_id: id,
    order_kind: 'standard',
    external_customer_id: 'c1',
    items: [{ external_variant_id: variant, quantity: 1, price: '9.99', currency: 'EUR' }],
    contact_permission: { status: 'granted' },
    contact_not_before: null,
    priority: 0,
    confidence: null,
    processing_state: 'received',
    state_reason: null,
    revision: 1,
    history: [{ revision: 1, from: null, to: 'received', reason: null, at }],
    correlation_id: 'cor_1',
    call_attempts: 0,
    next_contact_at: null,
    substitutions: [],
    source_version: '1',
    version_kind: 'integer',
    version_key: '1',
    content_sha256: 'h',
    created_at: at,
    updated_at: at,
  };
}

function ports(phone: string): ProcessingPorts & { orders: ReturnType<typeof memoryOrders> } {
  const customer: StoredCustomer = {
    external_customer_id: 'c1',
    phone,
    locale: 'de-DE',
    consent: { status: 'granted', proof: { source: 'checkout', collected_at: '2026-01-01T00:00:00Z' } },
    source_version: '1',
    created_at: NOON.toISOString(),
    updated_at: NOON.toISOString(),
  };
  const beans: ResolvedVariant = {
    external_variant_id: 'beans',
    external_product_id: 'coffee',
    category: null,
    archived: false,
    price: '9.99',
    currency: 'EUR',
  };
  const config = TenantConfigSchema.parse({ markets: [{ country: 'DE', locale_default: 'de-DE', calling_days: [1, 2, 3, 4, 5, 6, 7] }] });
  return {
    orders: memoryOrders(),
    customers: { read: async (_t, id) => (id === 'c1' ? customer : undefined) },
    variants: { resolve: async (_t, ids) => new Map(ids.filter((id) => id === 'beans').map((id) => [id, beans])) },
    rules: { active: async () => [] },
    tenantConfigOf: async () => config,
    callPlatform: sandboxDialer,
    settings: { variantIndexGraceSeconds: 60, callRetryDelaySeconds: 0 },
  };
}

describe('order processing on in-memory ports', () => {
  it('takes an order from received through qualification, scheduling and the call to a confirmed result', async () => {
    const p = ports('+4915100000000');
    p.orders.orders.set('acme/o-1', order('o-1'));
    await orderProcessing(p).advanceOrder('acme', 'o-1', () => NOON);
    const done = p.orders.orders.get('acme/o-1')!;
    expect(done.processing_state).toBe('completed');
    expect(done.history.map((h) => h.to)).toEqual(['received', 'validated', 'scheduled', 'in_call', 'completed']);
    const result = p.orders.items.find((i) => (i as { entity?: string }).entity === 'result') as { business_outcome: string };
    expect(result.business_outcome).toBe('confirmed');
    // Every state change has its event.
    expect(p.orders.items.filter((i) => (i as { event_type?: string }).event_type === 'commerce.order.status_changed.v1')).toHaveLength(4);
  });

  it('ends a customer who declines (scenario 3) as declined, and an unreachable one after the tenant’s attempts', async () => {
    const declined = ports('+4915100000003');
    declined.orders.orders.set('acme/o-2', order('o-2'));
    await orderProcessing(declined).advanceOrder('acme', 'o-2', () => NOON);
    expect(declined.orders.items.find((i) => (i as { entity?: string }).entity === 'result')).toMatchObject({ business_outcome: 'declined' });

    const unreachable = ports('+4915100000001');
    unreachable.orders.orders.set('acme/o-3', order('o-3'));
    const processing = orderProcessing(unreachable);
    for (let run = 0; run < 3; run++) await processing.advanceOrder('acme', 'o-3', () => NOON);
    const o3 = unreachable.orders.orders.get('acme/o-3')!;
    expect(o3.call_attempts).toBe(3);
    expect(unreachable.orders.items.find((i) => (i as { entity?: string }).entity === 'result')).toMatchObject({ business_outcome: 'unreachable' });
  });

  it('waits for a variant not yet indexed within the grace period instead of rejecting, then rejects it after', async () => {
    const p = ports('+4915100000000');
    p.orders.orders.set('acme/o-4', order('o-4', 'not-yet-indexed'));
    await orderProcessing(p).advanceOrder('acme', 'o-4', () => NOON);
    expect(p.orders.orders.get('acme/o-4')).toMatchObject({ processing_state: 'received', retry_qualification_at: expect.any(String) });
    await orderProcessing(p).advanceOrder('acme', 'o-4', () => new Date(NOON.getTime() + 61_000));
    expect(p.orders.orders.get('acme/o-4')).toMatchObject({ processing_state: 'rejected', state_reason: 'unknown_variant' });
  });
});
