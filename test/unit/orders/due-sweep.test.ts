import { describe, expect, it } from 'vitest';
import { type Advance, advanceInTurns, type DueOrder, type ShardReader, TenantTurns, tenantShare } from '#shared/orders/due-sweep.ts';
import { keys, TENANT_DUE_SHARDS, tenantDueShard } from '#shared/storage/keys.ts';

/** A tenant's due orders as the index holds them, split over its shards, read back in pages. */
function tenantWith(tenant: string, orders: { id: string; at: string; priority?: number }[]): TenantTurns {
  const entries = orders
    .map(({ id, at, priority = 0 }): DueOrder => {
      const pk = keys.order(tenant, id).pk;
      return { pk, sk: 'ORDER', tenant, external_order_id: id, priority, gsi2sk: keys.orderDue({ pk, tenant, priority }, new Date(at)).gsi2sk };
    })
    .sort((a, b) => (a.gsi2sk < b.gsi2sk ? -1 : 1));
  const byShard = new Map<number, DueOrder[]>();
  for (const e of entries) byShard.set(tenantDueShard(tenant, e.pk), [...(byShard.get(tenantDueShard(tenant, e.pk)) ?? []), e]);
  const read: ShardReader = async (shard, last, limit) => {
    const all = byShard.get(shard)!;
    const rest = all.slice(all.indexOf(last) + 1);
    return { entries: rest.slice(0, limit), more: rest.length > limit };
  };
  return new TenantTurns(
    tenant,
    [...byShard].map(([shard, list]) => ({ shard, head: list[0]! })),
    read,
  );
}

/**
 * A clock that moves only as the sweep works (each start takes `msPerAdvance`) and sleeps: a
 * sleep ends once the work beside it has moved the clock past its end, or, when no start is
 * under way and nothing moved the clock in a turn of the event loop, at once. A dial rate of `perSecond`
 * for the tenants in `live`.
 */
function platform(perSecond: number, live: readonly string[], msPerAdvance = 0) {
  let now = Date.parse('2026-11-24T09:00:00.000Z');
  const dials: { tenant: string; id: string; second: number }[] = [];
  let inFlight = 0;
  const advance: Advance = async (tenant, id) => {
    // A start is I/O, as the table's calls are: the work beside it runs meanwhile.
    inFlight++;
    await new Promise((resolve) => setImmediate(resolve));
    inFlight--;
    now += msPerAdvance;
    const second = Math.floor(now / 1000);
    if (live.includes(tenant) && dials.filter((d) => d.second === second && live.includes(d.tenant)).length >= perSecond) return { dialRate: 'second_full' };
    dials.push({ tenant, id, second });
    return live.includes(tenant) ? { dialRate: 'placed' } : {};
  };
  return {
    advance,
    dials,
    start: now,
    clock: () => now,
    sleep: async (ms: number) => {
      const until = now + ms;
      while (now < until) {
        const before = now;
        await new Promise((resolve) => setImmediate(resolve));
        if (now === before && inFlight === 0) now = until;
      }
    },
  };
}

describe('the call sweep', () => {
  it("serves tenants in turn, the longest waiting first, each tenant's orders by due time and then priority, at most its share", async () => {
    const a = tenantWith('a', [
      { id: 'a-late', at: '2026-11-24T08:30:00Z', priority: 1000 },
      { id: 'a-low', at: '2026-11-24T08:00:00Z', priority: -5 },
      { id: 'a-high', at: '2026-11-24T08:00:00Z', priority: 5 },
    ]);
    const b = tenantWith('b', [{ id: 'b-1', at: '2026-11-24T07:00:00Z', priority: -1000 }]);
    const c = tenantWith('c', [{ id: 'c-1', at: '2026-11-24T08:50:00Z' }]);
    const tenants = [a, b, c].sort((x, y) => (x.firstDue < y.firstDue ? -1 : 1));
    const p = platform(100, []);
    await advanceInTurns(tenants, p.advance, { share: 2, deadline: p.start + 60_000, clock: p.clock, sleep: p.sleep });
    expect(p.dials.map((d) => d.id)).toEqual(['b-1', 'a-high', 'c-1', 'a-low']);
  });

  it("starts a big tenant's morning at the dial rate over the whole run, and a small tenant's one call in the run's first second", async () => {
    const morning = Array.from({ length: 10_000 }, (_, i) => ({ id: `big-${i}`, at: '2026-11-24T09:00:00Z' }));
    const big = tenantWith('big', morning);
    const small = tenantWith('small', [{ id: 'small-1', at: '2026-11-24T09:00:30Z' }]);
    const perSecond = 5;
    const p = platform(perSecond, ['big', 'small']);
    const started = await advanceInTurns([big, small], p.advance, {
      share: tenantShare(60, perSecond),
      deadline: p.start + 60_000,
      clock: p.clock,
      sleep: p.sleep,
    });
    const perSecondCounts = Object.values(Object.groupBy(p.dials, (d) => String(d.second))).map((d) => d!.length);
    expect(Math.max(...perSecondCounts)).toBeLessThanOrEqual(perSecond);
    // Every second of the run dials at the rate: 300 calls, one of them the small tenant's, in its first second.
    expect(started).toBe(60 * perSecond);
    expect(p.dials.find((d) => d.tenant === 'small')?.second).toBe(Math.floor(p.start / 1000));
    // The big tenant's next orders are read a page at a time, in due order, each once.
    const bigIds = p.dials.filter((d) => d.tenant === 'big').map((d) => d.id);
    expect(new Set(bigIds).size).toBe(bigIds.length);
  });

  it("keeps a live tenant at the dial rate while sandbox tenants' work, which the rate does not hold, fills the rest of each second", async () => {
    const big = tenantWith(
      'big',
      Array.from({ length: 2_000 }, (_, i) => ({ id: `big-${i}`, at: '2026-11-24T08:00:00Z' })),
    );
    const sandboxes = Array.from({ length: 200 }, (_, t) =>
      tenantWith(
        `sandbox-${t}`,
        Array.from({ length: 50 }, (_, i) => ({ id: `s${t}-${i}`, at: '2026-11-24T08:30:00Z' })),
      ),
    );
    const perSecond = 5;
    // Each start takes 3 ms: the sandbox tenants' 10,000 starts alone take 30 s of the run.
    const p = platform(perSecond, ['big'], 3);
    await advanceInTurns([big, ...sandboxes], p.advance, {
      share: tenantShare(60, perSecond),
      dialsPerSecond: perSecond,
      deadline: p.start + 60_000,
      clock: p.clock,
      sleep: p.sleep,
    });
    const bigDials = p.dials.filter((d) => d.tenant === 'big');
    expect(bigDials.length).toBeGreaterThanOrEqual(59 * perSecond);
    expect(p.dials.filter((d) => d.tenant.startsWith('sandbox-'))).toHaveLength(200 * 50);
  });

  it('stops at the deadline, however much is left', async () => {
    const big = tenantWith(
      'big',
      Array.from({ length: 500 }, (_, i) => ({ id: `o-${i}`, at: '2026-11-24T09:00:00Z' })),
    );
    const p = platform(2, ['big']);
    await advanceInTurns([big], p.advance, { share: 500, deadline: p.start + 10_000, clock: p.clock, sleep: p.sleep });
    expect(p.dials).toHaveLength(20);
    expect(big.seenWaitingSince('2026-11-24T09:00:01.000Z')).toBeGreaterThan(0);
  });

  it('serves every tenant with due work in the run though its deadline comes first, and only those not yet served, until its limit', async () => {
    const tenants = Array.from({ length: 60 }, (_, t) =>
      tenantWith(
        `t-${String(t).padStart(2, '0')}`,
        Array.from({ length: 5 }, (_, i) => ({ id: `t${t}-${i}`, at: `2026-11-24T08:${String(t).padStart(2, '0')}:00Z` })),
      ),
    );
    // Each start takes 400 ms, eight at a time: a turn of every tenant takes about 3 s, past the 1 s deadline.
    const p = platform(100, [], 400);
    await advanceInTurns(tenants, p.advance, { share: 5, deadline: p.start + 1_000, servedBy: p.start + 60_000, clock: p.clock, sleep: p.sleep });
    const servedTenants = new Set(p.dials.map((d) => d.tenant));
    expect(servedTenants.size).toBe(60);
    // Past the deadline no tenant starts a second order.
    const startsOf = Object.values(Object.groupBy(p.dials, (d) => d.tenant)).map((d) => d!.length);
    expect(startsOf.filter((n) => n > 1).length).toBeLessThanOrEqual(8);
    // A limit that comes first ends the run all the same.
    const q = platform(100, [], 400);
    await advanceInTurns(tenants, q.advance, { share: 5, deadline: q.start + 1_000, servedBy: q.start + 2_000, clock: q.clock, sleep: q.sleep });
    expect(new Set(q.dials.map((d) => d.tenant)).size).toBeLessThan(60);
  });

  it("goes on with every other order when one order's advance fails (its dial answered what no one expected)", async () => {
    const tenants = ['a', 'b', 'c'].map((t) =>
      tenantWith(t, [
        { id: `${t}-1`, at: '2026-11-24T08:00:00Z' },
        { id: `${t}-2`, at: '2026-11-24T08:01:00Z' },
      ]),
    );
    const p = platform(100, []);
    const failed: { tenant: string; error: unknown }[] = [];
    const advance: Advance = async (tenant, id) => {
      if (id === 'b-1') throw Object.assign(new Error('InternalServiceException'), { name: 'InternalServiceException' });
      return p.advance(tenant, id);
    };
    const started = await advanceInTurns(tenants, advance, { share: 5, deadline: p.start + 60_000, clock: p.clock, sleep: p.sleep, failed });
    expect(p.dials.map((d) => d.id).sort()).toEqual(['a-1', 'a-2', 'b-2', 'c-1', 'c-2']);
    expect(started).toBe(6);
    expect(failed).toMatchObject([{ tenant: 'b', error: { name: 'InternalServiceException' } }]);
  });

  it('gives a sandbox tenant (no dial rate) its share at once, and a live tenant as much as the rate starts in a run', () => {
    expect(tenantShare(60)).toBe(25);
    expect(tenantShare(60, 2)).toBe(120);
    expect(tenantShare(1, 2)).toBe(25);
  });
});

describe('the order due index', () => {
  it("keeps a tenant's entries of a day together, by due time, then the higher priority, in a few shards of its own", () => {
    const entry = (tenant: string, id: string, at: string, priority: number) =>
      keys.orderDue({ pk: keys.order(tenant, id).pk, tenant, priority }, new Date(at));
    const keysOf = [
      entry('t', 'late', '2026-11-24T10:00:00Z', 1000),
      entry('t', 'low', '2026-11-24T09:00:00Z', -1000),
      entry('t', 'high', '2026-11-24T09:00:00Z', 1000),
      entry('t', 'mid', '2026-11-24T09:00:00Z', 0),
    ].map((e) => e.gsi2sk);
    expect([...keysOf].sort()).toEqual([keysOf[2], keysOf[3], keysOf[1], keysOf[0]]);
    const shards = new Set(Array.from({ length: 200 }, (_, i) => entry('t', `o-${i}`, '2026-11-24T09:00:00Z', 0).gsi2pk));
    expect(shards.size).toBe(TENANT_DUE_SHARDS);
  });

  it('holds a due time past year 9999 as the last instant, which sorts after every real time, never as +010000-…', () => {
    const order = { pk: keys.order('t', 'o').pk, tenant: 't', priority: 0 };
    expect(keys.orderDue(order, new Date('+010000-01-01T07:00:00.000Z')).gsi2sk).toBe('9999-12-31#t#9999-12-31T23:59:59.999Z#1000');
    expect(keys.orderDue(order, new Date('2026-11-24T09:00:00Z')).gsi2sk).toBe('2026-11-24#t#2026-11-24T09:00:00.000Z#1000');
  });
});
