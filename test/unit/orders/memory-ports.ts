/** Order processing's ports in memory: orders with the table's compare-and-set, a fixed catalog, customer and tenant. */
import { sandboxDialer } from '#shared/calls/call-platform.ts';
import type { CallAttempt, OrderResult } from '#shared/calls/call-schemas.ts';
import type { ResolvedVariant } from '#shared/catalog/variant-index.ts';
import type { StoredCustomer } from '#shared/customers/customers.ts';
import { AlreadyWrittenError, RevisionConflict } from '#shared/errors.ts';
import { applyOrderChange, type OrderRepository, orderCreation, type StoredOrder } from '#shared/orders/order.ts';
import { encodeEntry, eventsOf, historyOf, mergedLog } from '#shared/orders/order-log.ts';
import type { ProcessingPorts } from '#shared/orders/processing.ts';
import { TenantConfigSchema } from '#shared/tenants/config.ts';

/** Noon in Berlin on a Wednesday: inside every calling window. */
export const NOON = new Date('2026-11-25T11:00:00Z');

/** Orders in a map, with the table's compare-and-set on the revision; every item written alongside is kept. */
export function memoryOrders(): OrderRepository & { items: object[]; orders: Map<string, StoredOrder>; writes: string[] } {
  const orders = new Map<string, StoredOrder>();
  const items: object[] = [];
  /** The state of the order as each write left it: one entry per write to the table. */
  const writes: string[] = [];
  const keyOf = (i: object) => `${(i as { pk?: string }).pk}|${(i as { sk?: string }).sk}`;
  const entityOf = (i: object) => (i as { entity?: string }).entity;
  const commit: OrderRepository['commit'] = async (base, next, written) => {
    const key = `${base.tenant}/${base.external_order_id}`;
    if (orders.get(key)?.revision !== base.revision) throw new RevisionConflict('changed');
    // Like the table: a result is written once, with the change; an attempt once, and one that comes again keeps the first.
    const existing = new Set(items.map(keyOf));
    if (written.some((i) => entityOf(i) === 'result' && existing.has(keyOf(i)))) throw new AlreadyWrittenError('written before');
    orders.set(key, next);
    items.push(...written.filter((i) => !(entityOf(i) === 'call_attempt' && existing.has(keyOf(i)))));
    writes.push(next.processing_state);
    return next;
  };
  return {
    orders,
    items,
    writes,
    read: async (tenant, id) => orders.get(`${tenant}/${id}`),
    // As the table creates it: in `received`, revision 1, with its first status event in its log; undefined when it exists.
    create: async (order, now, causationId) => {
      const key = `${order.tenant}/${order.external_order_id}`;
      if (orders.has(key)) return undefined;
      const { created, items: written } = orderCreation(order, now, causationId);
      orders.set(key, created);
      items.push(...written);
      writes.push('received');
      return created;
    },
    write: async (order, change, now) => {
      const { next, items: written } = applyOrderChange(order, change, now);
      return commit(order, next, written, now);
    },
    commit,
  };
}

/** The order's whole log: the stretches moved to history items, then its own. */
const wholeLog = (repository: ReturnType<typeof memoryOrders>, o: StoredOrder) =>
  mergedLog(
    ...repository.items
      .filter((i) => (i as { pk?: string; entity?: string }).pk === o.pk && (i as { entity?: string }).entity === 'order_history')
      .map((h) => (h as { log: string[] }).log),
    o.log,
  );

/** The states an order went through, read from its history. */
export const statesOf = (repository: ReturnType<typeof memoryOrders>, id: string): string[] =>
  historyOf(wholeLog(repository, repository.orders.get(`acme/${id}`)!)).map((h) => h.to);

/** Every event the order's writes produced, as its stream records publish them. */
export function eventsOfOrder(repository: ReturnType<typeof memoryOrders>, id: string) {
  const o = repository.orders.get(`acme/${id}`)!;
  const own = repository.items.filter((i) => (i as { pk?: string }).pk === o.pk) as Record<string, unknown>[];
  const attempts = new Map(own.filter((i) => i.entity === 'call_attempt').map((i) => [Number(i.attempt), i as unknown as CallAttempt]));
  const result = own.find((i) => i.entity === 'result') as unknown as OrderResult | undefined;
  return eventsOf(o, wholeLog(repository, o), { attempts, result });
}

export function order(id: string, variant = 'beans'): StoredOrder {
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
    status_revision: 1,
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
    log: [encodeEntry({ kind: 'status', revision: 1, to: 'received', reason: null, at, causation: null })],
  };
}

export function ports(phone: string): ProcessingPorts & { orders: ReturnType<typeof memoryOrders> } {
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
    callPlatforms: { sandbox: sandboxDialer, live: undefined },
    settings: { variantIndexGraceSeconds: 60, callRetryDelaySeconds: 0 },
  };
}
