/**
 * `npm run bench -- live-calls`: three live tenants submit bursts at once (60, 30 and 30 orders)
 * while the Connect stand-in throttles dials at 2 a second, Connect's default account quota, and
 * the deployment's dial rate is set to it. Every order must be called once and none lost; the
 * dial rate used is compared with the throttle, and each tenant's share of the dials, while all
 * three had calls waiting, with an equal third. Each call lasts seconds (its turns are spoken
 * slowly), so that the calls in flight reach the instance's quota of concurrent calls, which the
 * most in flight at once must never pass.
 */
import { randomUUID } from 'node:crypto';
import { localDeploymentCalls } from '#local/deployment.ts';
import type { LocalStack } from '#local/stack.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { type BenchKey, CALL_NOW_CONFIG, send } from '../lib/client.ts';
import { type Figure, figure } from '../lib/figures.ts';
import { progress } from '../lib/measure.ts';

const THROTTLE_PER_SECOND = 2;
/** How long each thing said takes: a call of three turns lasts about 5 s, so 2 dials a second keep about 10 calls in flight. */
const SPEECH_MS = 1_600;
const BURSTS = [60, 30, 30];
const CATALOG = {
  products: [
    {
      external_product_id: 'coffee',
      title: 'Coffee beans',
      source_version: '1',
      variants: [{ external_variant_id: 'beans', price: '9.99', currency: 'EUR' }],
    },
  ],
};

async function liveTenant(baseUrl: string, name: string): Promise<BenchKey> {
  const { putTenantConfig } = await import('#shared/tenants/config-writer.ts');
  const { createApiKey } = await import('#shared/auth/api-keys.ts');
  const { SCOPES } = await import('#shared/api/scopes.ts');
  const tenant = `${name}-${randomUUID().slice(0, 8)}`;
  await putTenantConfig(tenant, { ...CALL_NOW_CONFIG, mode: 'live' }, localDeploymentCalls({ ...process.env, CALL_PLATFORM: 'connect' }));
  const created = await createApiKey(tenant, [...SCOPES]);
  const key = { tenant, keyId: created.key_id, secret: created.secret };
  await send(baseUrl, key, 'POST', '/products/batch', CATALOG);
  return key;
}

/** A burst of `count` orders, each to a customer of its own whose number answers and confirms (ending in 0). */
async function burst(baseUrl: string, key: BenchKey, count: number, phones: Map<string, string>): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `o-${i}`);
  await mapWithConcurrency(ids, 10, async (id) => {
    const phone = `+49152${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}0`;
    phones.set(phone, key.tenant);
    const customer = {
      phone,
      locale: 'de-DE',
      consent: { status: 'granted', proof: { source: 'checkout', reference: 'p', collected_at: '2026-01-01T00:00:00Z' } },
      source_version: '1',
    };
    await send(baseUrl, key, 'PUT', `/customers/c-${id}`, customer);
  });
  await mapWithConcurrency(ids, 20, async (id) => {
    const order = {
      order_kind: 'standard',
      external_order_id: id,
      external_customer_id: `c-${id}`,
      items: [{ external_variant_id: 'beans', quantity: 1, price: '9.99', currency: 'EUR' }],
      contact_permission: { status: 'granted' },
      source_version: '1',
    };
    const res = await send(baseUrl, key, 'POST', '/orders', order);
    if (res.status !== 201) throw new Error(`an order was refused: ${res.status}`);
  });
  return ids;
}

async function completed(baseUrl: string, key: BenchKey, ids: readonly string[]): Promise<{ completed: number; attempts: number }> {
  const orders = await mapWithConcurrency(ids, 10, async (id) => (await send(baseUrl, key, 'GET', `/orders/${id}`)).body);
  return {
    completed: orders.filter((o) => o.processing_state === 'completed').length,
    attempts: orders.reduce((sum, o) => sum + (o.call_attempts ?? 0), 0),
  };
}

/** When the dials were placed, and each tenant's share of them while all had calls waiting (until the first had its last dial). */
function dialShares(dials: { destination: string; initiatedAt: number }[], phones: Map<string, string>, tenants: BenchKey[]) {
  const dialTimes = (tenant: string) =>
    dials
      .filter((c) => phones.get(c.destination) === tenant)
      .map((c) => c.initiatedAt)
      .sort((a, b) => a - b);
  const contestedUntil = Math.min(...tenants.map((t) => dialTimes(t.tenant).at(-1)!));
  const contested = tenants.map((t) => dialTimes(t.tenant).filter((at) => at <= contestedUntil).length);
  return {
    first: Math.min(...dials.map((c) => c.initiatedAt)),
    last: Math.max(...dials.map((c) => c.initiatedAt)),
    contested,
    largestShare: Math.max(...contested) / contested.reduce((a, b) => a + b, 0),
  };
}

export async function run(baseUrl: string, _settled: unknown, _held: unknown, stack?: LocalStack): Promise<Figure[]> {
  const connect = stack?.connect;
  if (!connect) throw new Error('the live-calls suite needs the local stack with CALL_PLATFORM=connect');
  connect.standIn.dialsPerSecond = THROTTLE_PER_SECOND;
  connect.calls.timing.speechMs = SPEECH_MS;
  const throttledBefore = connect.standIn.throttledDials;
  const quota = connect.standIn.concurrentCalls;
  const phones = new Map<string, string>();
  const tenants = await Promise.all(BURSTS.map((_, i) => liveTenant(baseUrl, `bench-live-${i}`)));
  progress(`  ${BURSTS.join(' + ')} orders from three live tenants at once, dials throttled at ${THROTTLE_PER_SECOND}/s`);
  const ids = await Promise.all(tenants.map((key, i) => burst(baseUrl, key, BURSTS[i]!, phones)));
  const total = BURSTS.reduce((a, b) => a + b, 0);
  const deadline = Date.now() + (total / THROTTLE_PER_SECOND) * 4_000 + 60_000;
  let done = 0;
  while (Date.now() < deadline) {
    done = (await Promise.all(tenants.map((key, i) => completed(baseUrl, key, ids[i]!)))).reduce((sum, c) => sum + c.completed, 0);
    if (done === total) break;
    await new Promise((r) => setTimeout(r, 2_000));
  }
  const finals = await Promise.all(tenants.map((key, i) => completed(baseUrl, key, ids[i]!)));
  const dials = [...connect.standIn.contacts.values()].filter((c) => phones.has(c.destination));
  const { first, last, contested, largestShare } = dialShares(dials, phones, tenants);
  connect.standIn.dialsPerSecond = undefined;
  connect.calls.timing.speechMs = 5;
  const limitRefusals = connect.standIn.refusals.LimitExceededException ?? 0;
  const note = `${connect.standIn.throttledDials - throttledBefore} dials throttled by the stand-in and dialled again; contested dials per tenant ${contested.join(', ')}`;
  const measured = { completed: finals.reduce((sum, c) => sum + c.completed, 0), attempts: finals.reduce((sum, c) => sum + c.attempts, 0) };
  return liveCallFigures({
    total,
    dials: dials.length,
    first,
    last,
    largestShare,
    tenants: tenants.length,
    peak: connect.standIn.peakInFlight,
    quota,
    limitRefusals,
    note,
    ...measured,
  });
}

interface LiveCallRun {
  total: number;
  completed: number;
  attempts: number;
  dials: number;
  first: number;
  last: number;
  largestShare: number;
  tenants: number;
  peak: number;
  quota: number;
  limitRefusals: number;
  note: string;
}

function liveCallFigures(r: LiveCallRun): Figure[] {
  return [
    figure({
      suite: 'live-calls',
      name: 'orders called and completed, of 120 submitted by three live tenants at once',
      value: r.completed,
      unit: 'orders',
      floor: { value: r.total, label: 'orders submitted' },
      target: { ratio: 1, direction: 'at_least' },
    }),
    figure({
      suite: 'live-calls',
      name: 'call attempts per order (one dial each: none repeated, none lost)',
      value: r.attempts / r.total,
      unit: 'attempts',
      floor: { value: r.dials / r.total, label: 'contacts the stand-in placed per order' },
      target: { ratio: 1, direction: 'at_most' },
    }),
    figure({
      suite: 'live-calls',
      name: 'live dials per second, first to last dial',
      value: (r.dials - 1) / ((r.last - r.first) / 1000),
      unit: 'dials/s',
      floor: { value: THROTTLE_PER_SECOND, label: "the stand-in's throttle (Connect's default quota)" },
      target: { ratio: 0.75, direction: 'at_least' },
      note: r.note,
    }),
    figure({
      suite: 'live-calls',
      name: 'most live calls in flight at once',
      value: r.peak,
      unit: 'calls',
      floor: { value: r.quota, label: "the instance's quota of concurrent active calls (Connect's default: 10)" },
      target: { ratio: 1, direction: 'at_most' },
      note: `${r.limitRefusals} dials refused by the stand-in for its quota (LimitExceededException)`,
    }),
    figure({
      suite: 'live-calls',
      name: "largest tenant's share of the dials while all three had calls waiting",
      value: r.largestShare,
      unit: 'share',
      floor: { value: 1 / r.tenants, label: 'an equal third' },
      target: { ratio: 1.25, direction: 'at_most' },
    }),
  ];
}
