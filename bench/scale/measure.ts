/** The requests the `scale` suite times on each tenant size: every list filter, and the reactions' walks. */

import { withCapacityScope } from '#local/metering/capacity-meter.ts';
import { listProducts } from '#shared/catalog/product-store.ts';
import type { ListPosition, OrderWalk } from '#shared/jobs/reaction-jobs.ts';
import { listOrders, orderIdsPage } from '#shared/orders/order-store.ts';
import { JOB_PAGE_SIZE } from '#shared/orders/reactions.ts';
import { listDeliveries } from '#shared/webhooks/delivery-list.ts';
import { percentile } from '../lib/measure.ts';
import { ARCHIVED_VARIANT, ERASED_CUSTOMER, RARE_WORD, seedTenant } from './seed.ts';

type Page = { data: unknown[]; next_cursor: string | null };
const HOUR_MS = 3600_000;

/** Every list request a partner can make, by the name the figures use. */
function listRequests(tenant: string, now: Date, limit: number): Record<string, () => Promise<Page>> {
  const product = (filters: Parameters<typeof listProducts>[1]) => () => listProducts(tenant, filters, { limit });
  const orders = (filters: Parameters<typeof listOrders>[1]) => () => listOrders(tenant, filters, { limit });
  const lastHour = new Date(now.getTime() - HOUR_MS).toISOString();
  return {
    products: product({ include_archived: false }),
    'products status=inactive': product({ status: 'inactive', include_archived: false }),
    'products status=archived': product({ status: 'archived', include_archived: false }),
    'products include_archived': product({ include_archived: true }),
    'products availability=preorder': product({ availability: 'preorder', include_archived: false }),
    'products availability=discontinued&status=inactive': product({ availability: 'discontinued', status: 'inactive', include_archived: false }),
    'products category=food': product({ category: 'food', include_archived: false }),
    [`products q=${RARE_WORD} (bounded read)`]: product({ q: RARE_WORD, include_archived: false }),
    orders: orders({}),
    'orders processing_state=scheduled': orders({ processing_state: 'scheduled' }),
    'orders processing_state=completed': orders({ processing_state: 'completed' }),
    'orders updated_since=1h ago': orders({ updated_since: lastHour }),
    'orders processing_state=cancelled&updated_since=1h ago': orders({ processing_state: 'cancelled', updated_since: lastHour }),
    'webhook-deliveries': () => listDeliveries(tenant, undefined, { limit }),
    'webhook-deliveries status=dead_lettered': () => listDeliveries(tenant, 'dead_lettered', { limit }),
  };
}

/** A whole reaction walk (every page a job would take), as one request's units and time. */
async function walk(tenant: string, what: OrderWalk): Promise<number> {
  let position: ListPosition | null = { shard: 0 };
  let orders = 0;
  while (position) {
    const page: { ids: string[]; next: ListPosition | null } = await orderIdsPage(tenant, what, position, JOB_PAGE_SIZE);
    orders += page.ids.length;
    position = page.next;
  }
  return orders;
}

interface Samples {
  times: number[];
  units: number;
  returned: number;
}

async function sampleOnce(run: () => Promise<unknown>, into: Samples) {
  const start = performance.now();
  const { result, capacity } = await withCapacityScope(run);
  into.times.push(performance.now() - start);
  into.units += capacity.readUnits;
  into.returned = Array.isArray((result as Page).data) ? (result as Page).data.length : Number(result);
}

/** One request's figures at one tenant size. */
export interface Measured {
  size: number;
  request: string;
  p50_ms: number;
  p99_ms: number;
  read_units: number;
  returned: number;
}

/** Seeds every size, then times each request on every size in alternation, so the machine's drift and warm-up fall on all sizes alike. */
export async function measureSizes(sizes: readonly number[], samples: number, limit: number): Promise<Measured[]> {
  const now = new Date();
  const tenants = new Map<number, Record<string, () => Promise<unknown>>>();
  for (const size of sizes) {
    const tenant = `scale-${size}`;
    const seeding = performance.now();
    await seedTenant(tenant, size, now);
    process.stderr.write(`  seeded ${size.toLocaleString('en')} products, orders and deliveries in ${((performance.now() - seeding) / 1000).toFixed(0)} s\n`);
    tenants.set(size, {
      ...listRequests(tenant, now, limit),
      'reaction: product archive walk (active orders)': () => walk(tenant, { kind: 'active-using', variants: [ARCHIVED_VARIANT] }),
      'reaction: customer erasure walk': () => walk(tenant, { kind: 'of-customer', customer: ERASED_CUSTOMER }),
    });
  }
  const out: Measured[] = [];
  for (const request of Object.keys(tenants.get(sizes[0]!)!)) {
    const bySize = new Map(sizes.map((size) => [size, { times: [], units: 0, returned: 0 } as Samples]));
    for (const size of sizes) await tenants.get(size)![request]!(); // warm: connections, the cursor key
    // As many rounds for a walk as for a page: with a quarter as many, its p99 was its slowest sample.
    for (let round = 0; round < samples; round++) {
      for (const size of sizes) await sampleOnce(tenants.get(size)![request]!, bySize.get(size)!);
    }
    for (const size of sizes) {
      const s = bySize.get(size)!;
      s.times.sort((a, b) => a - b);
      const figures = { p50_ms: percentile(s.times, 50), p99_ms: percentile(s.times, 99), read_units: s.units / samples, returned: s.returned };
      out.push({ size, request, ...figures });
      process.stderr.write(
        `  ${size} ${request}: p50 ${figures.p50_ms.toFixed(1)} ms, p99 ${figures.p99_ms.toFixed(1)} ms, ${figures.read_units.toFixed(1)} RCU, ${figures.returned} returned\n`,
      );
    }
  }
  return out;
}
