/**
 * The call scheduler's sweep: orders whose contact time has come (or whose call seems stuck)
 * are advanced. On AWS a run starts every minute and paces its calls over that minute; the
 * local runtime starts one every second.
 *
 * One deployment serves every tenant, so a run shares itself out and stays bounded whatever
 * the backlog:
 * - it reads the due index by skip scan (due-index.ts): the first due order of each tenant in
 *   each shard, then further pages of a tenant only as its turns come, so what it holds is a
 *   few entries per tenant, not the backlog;
 * - tenants take turns (the one whose first due order has waited longest first), each at most
 *   `tenantShare` orders a run, each tenant's orders by due time and, among those due at the
 *   same time, by priority;
 * - the call platform's dial rate paces it: when a start is refused for the rate, the second's
 *   dials are spent, and the run goes on in the next second where it left off, for one interval
 *   after its scan (when the next run, having scanned, takes over). A tenant's morning of due calls starts at the dial rate, and another tenant's
 *   due call waits at most one run;
 * - every tenant with due work is served in every run: a run whose deadline comes (a slow scan, a
 *   busy table) before each tenant has started an order goes on for those tenants alone, until
 *   each has, or until the run's limit (RUN_LIMIT_FACTOR of the interval, inside the function's
 *   timeout).
 */

import { mapWithConcurrency } from '../async/concurrency.ts';
import type { DialClaim } from '../calls/call-platform.ts';
import { logger } from '../logging/logger.ts';
import { METRIC } from '../observability/metric-names.ts';
import { countMetric } from '../observability/metrics.ts';
import { dueKey, firstDueOfEachTenant, moreDueOfTenant } from '../storage/due-index.ts';
import { DUE_INDEXES } from '../storage/keys.ts';

/** A tenant's least share of one run (with no dial rate, or a low one); the rest of its due orders wait for the next. */
export const CALLS_PER_TENANT_PER_SWEEP = 25;
/** The sweep's interval on AWS: an order due for longer than this should have been started by the last sweep. */
export const SWEEP_INTERVAL_SECONDS = 60;
/**
 * A run serves tenants it has not reached until this many intervals after it began: 84 s of the
 * call scheduler's 60 s schedule, inside its 90 s timeout (infra/parts/workers.ts).
 */
export const RUN_LIMIT_FACTOR = 1.4;
/** Orders advanced at once. */
const ADVANCES_AT_ONCE = 8;
/** Shards whose skip scans run at once: all of them, so the scan takes as long as the busiest shard's. */
const SHARDS_SCANNED_AT_ONCE = 32;
/** Entries read per page once a tenant's first due order in a shard has been started. */
const PAGE = 25;

export interface DueOrder {
  pk: string;
  sk: string;
  tenant: string;
  external_order_id: string;
  priority: number;
  /** `{day}#{tenant}#{due}#{priority}` (keys.orderDue): within a tenant, string order is due order. */
  gsi2sk: string;
}

/** What an advance reports of the dial rate, when it asked it (calls-platform.ts DialClaim): a refused start stays due the next second. */
export type AdvanceOutcome = { dialRate?: DialClaim | undefined } | undefined;
export type Advance = (tenant: string, id: string) => Promise<AdvanceOutcome>;

export interface SweepSettings {
  /** Seconds until the next run starts: this run paces its calls over them. */
  sweepSeconds?: number;
  /** The deployment's dial rate, when it has a live call platform. */
  dialsPerSecond?: number;
  clock?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** At most this many of a tenant's orders are advanced in one run: what the dial rate can start in it, and never fewer than CALLS_PER_TENANT_PER_SWEEP. */
export const tenantShare = (sweepSeconds: number, dialsPerSecond = 0) => Math.max(CALLS_PER_TENANT_PER_SWEEP, Math.ceil(dialsPerSecond * sweepSeconds));

const PROJECTION = 'pk, sk, tenant, external_order_id, priority, gsi2sk';
const byKey = (a: DueOrder, b: DueOrder) => (a.gsi2sk < b.gsi2sk ? -1 : a.gsi2sk > b.gsi2sk ? 1 : 0);

interface ShardPart {
  shard: number;
  buffer: DueOrder[];
  /** The last entry read from this shard, where its next page starts. */
  last: DueOrder;
  more: boolean;
}

/** Reads up to `limit` more of a tenant's due orders in a shard, after `last`. */
export type ShardReader = (shard: number, last: DueOrder, limit: number) => Promise<{ entries: DueOrder[]; more: boolean }>;

/** One tenant's due orders as a run holds them: the next few of each of its shards, read a page at a time as they are used. */
export class TenantTurns {
  started = 0;
  /** Orders whose start waited for the dial rate: tried first next time. */
  private readonly waiting: DueOrder[] = [];
  private readonly parts: ShardPart[];
  readonly tenant: string;
  private readonly read: ShardReader;

  constructor(tenant: string, heads: readonly { shard: number; head: DueOrder }[], read: ShardReader) {
    this.tenant = tenant;
    this.read = read;
    this.parts = heads.map(({ shard, head }) => ({ shard, buffer: [head], last: head, more: true }));
  }

  /** The due time of the tenant's earliest due order: the tenant waiting longest goes first. */
  get firstDue(): string {
    return [...this.waiting, ...this.parts.map((p) => p.buffer[0] ?? p.last)].map(dueTime).sort()[0] ?? '';
  }

  hasMore(share: number): boolean {
    return this.started < share && (this.waiting.length > 0 || this.parts.some((p) => p.buffer.length > 0 || p.more));
  }

  /** The tenant's next order by due time (then priority) across its shards, reading a page of a shard whose entries ran out. */
  async next(): Promise<DueOrder | undefined> {
    if (this.waiting.length) return this.waiting.shift();
    await Promise.all(
      this.parts
        .filter((p) => p.buffer.length === 0 && p.more)
        .map(async (p) => {
          const { entries, more } = await this.read(p.shard, p.last, PAGE);
          p.buffer.push(...entries);
          p.last = entries.at(-1) ?? p.last;
          p.more = more && entries.length > 0;
        }),
    );
    const part = this.parts.filter((p) => p.buffer.length > 0).sort((a, b) => byKey(a.buffer[0]!, b.buffer[0]!))[0];
    return part?.buffer.shift();
  }

  waitAgain(orders: readonly DueOrder[]): void {
    this.waiting.unshift(...orders);
  }

  /** Orders this run has seen and not started, due before `before`: what waits longer than a sweep (at least this many). */
  seenWaitingSince(before: string): number {
    const due = (o: DueOrder) => dueTime(o) < before;
    return this.waiting.filter(due).length + this.parts.reduce((n, p) => n + p.buffer.filter(due).length + (p.more && due(p.last) ? 1 : 0), 0);
  }
}

const dueTime = (o: DueOrder) => dueKey(o.gsi2sk).due;

/** Every tenant with a due order, by skip scan of each shard of the order due index, the longest waiting first. */
export async function dueTenants(now: Date): Promise<TenantTurns[]> {
  const index = DUE_INDEXES.orders;
  const headsByTenant = new Map<string, { shard: number; head: DueOrder }[]>();
  const shards = Array.from({ length: index.shards }, (_, shard) => shard);
  await mapWithConcurrency(shards, SHARDS_SCANNED_AT_ONCE, async (shard) => {
    for await (const head of firstDueOfEachTenant<DueOrder & Record<string, unknown>>(index, shard, now, PROJECTION)) {
      headsByTenant.set(head.tenant, [...(headsByTenant.get(head.tenant) ?? []), { shard, head }]);
    }
  });
  const read = async (shard: number, last: DueOrder, limit: number) => {
    const { entries, more } = await moreDueOfTenant<DueOrder & Record<string, unknown>>(
      index,
      shard,
      last as DueOrder & Record<string, unknown>,
      now,
      limit,
      PROJECTION,
    );
    return { entries: entries as DueOrder[], more };
  };
  const tenants = [...headsByTenant].map(([tenant, heads]) => new TenantTurns(tenant, heads, read));
  return tenants.sort((a, b) => (a.firstDue < b.firstDue ? -1 : a.firstDue > b.firstDue ? 1 : 0));
}

/** Tenants taking turns, one order each, from where the last batch stopped. */
class Rotation {
  private position = 0;
  readonly tenants: TenantTurns[] = [];
  private readonly share: number;

  constructor(share: number) {
    this.share = share;
  }

  hasWork(eligible: (t: TenantTurns) => boolean = () => true): boolean {
    return this.tenants.some((t) => eligible(t) && t.hasMore(this.share));
  }

  /** Up to `size` orders, one of each eligible tenant in turn, none of a tenant in `resting`. */
  async batch(
    size: number,
    resting: ReadonlySet<TenantTurns> = new Set(),
    eligible: (t: TenantTurns) => boolean = () => true,
  ): Promise<{ tenant: TenantTurns; order: DueOrder }[]> {
    const batch: { tenant: TenantTurns; order: DueOrder }[] = [];
    const taken = (t: TenantTurns) => t.started + batch.filter((b) => b.tenant === t).length;
    const may = (t: TenantTurns) => eligible(t) && !resting.has(t) && t.hasMore(this.share) && taken(t) < this.share;
    while (batch.length < size && this.tenants.some(may)) {
      const tenant = this.tenants[this.position++ % this.tenants.length]!;
      if (!may(tenant)) continue;
      const order = await tenant.next();
      if (order) batch.push({ tenant, order });
    }
    return batch;
  }

  /** The turn goes back to `tenant`: it is first in the next batch. */
  resumeAt(tenant: TenantTurns): void {
    this.position = Math.max(0, this.tenants.indexOf(tenant));
  }
}

export interface TurnOptions {
  share: number;
  /** How many of a tenant's starts the dial rate allows a second (a batch of rate-bound starts is no larger). */
  dialsPerSecond?: number | undefined;
  deadline: number;
  /** Past the deadline, the tenants that have started nothing yet go on until this (default: the deadline). */
  servedBy?: number | undefined;
  clock: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Collects the advances that failed (each has had its turn; the others go on). */
  failed?: { tenant: string; error: unknown }[] | undefined;
}

/**
 * Advances the tenants' orders in turns, a batch at a time, until every tenant's share is
 * started or the deadline comes. A tenant whose start asked the dial rate (a live tenant) is
 * rate-bound from then on: at the start of each second the rate-bound tenants take their turns
 * until the second is full (a tenant refused because it is ahead of one that waits tries
 * again after that one's dial), while the other tenants, whose work the rate does not hold,
 * take theirs beside them, so a slow batch of theirs never holds up a second's dials. Past the deadline, only the tenants that have started nothing yet go on,
 * until each has or `servedBy` comes.
 */
export async function advanceInTurns(tenants: readonly TenantTurns[], advance: Advance, options: TurnOptions): Promise<number> {
  const rateBound = new Rotation(options.share);
  const others = new Rotation(options.share);
  others.tenants.push(...tenants);
  const rateBatch = Math.min(ADVANCES_AT_ONCE, Math.max(1, options.dialsPerSecond ?? ADVANCES_AT_ONCE));
  let started = 0;
  const failed: { tenant: string; error: unknown }[] = options.failed ?? [];
  const secondOf = (ms: number) => Math.floor(ms / 1000);
  const pastDeadline = () => options.clock() >= options.deadline;
  // Until the deadline every tenant takes its turns; after it, only those not yet served.
  const eligible = (t: TenantTurns) => !pastDeadline() || t.started === 0;
  const limit = () => (pastDeadline() ? Math.max(options.deadline, options.servedBy ?? 0) : options.deadline);
  const within = (second: number) => options.clock() < limit() && secondOf(options.clock()) === second;
  let resting = new Set<TenantTurns>();
  /** Runs a batch; tenants that asked the dial rate join the rate-bound rotation. Says whether the second is full. */
  const run = async (rotation: Rotation, batch: { tenant: TenantTurns; order: DueOrder }[]) => {
    // An advance that fails (its order's dial answered what no one expected) is that order's alone: the rest of the batch goes on.
    const settled = await Promise.allSettled(batch.map(({ order }) => advance(order.tenant, order.external_order_id)));
    for (const [i, result] of settled.entries()) if (result.status === 'rejected') failed.push({ tenant: batch[i]!.order.tenant, error: result.reason });
    const outcomes = settled.map((result) => (result.status === 'fulfilled' ? result.value?.dialRate : undefined));
    const refused = (claim: DialClaim | undefined) => claim === 'second_full' || claim === 'behind_others' || claim === 'calls_full';
    const waited = batch.filter((_, i) => refused(outcomes[i]));
    for (const [i, { tenant }] of batch.entries()) if (!refused(outcomes[i])) tenant.started++;
    // A tenant ahead of one that waits tries again once that one has dialled; if no one in
    // the batch could, it sits out the rest of the second.
    if (!outcomes.includes('placed')) for (const [i, { tenant }] of batch.entries()) if (outcomes[i] === 'behind_others') resting.add(tenant);
    started += batch.length - waited.length;
    for (const tenant of new Set(waited.map((w) => w.tenant))) tenant.waitAgain(waited.filter((w) => w.tenant === tenant).map((w) => w.order));
    for (const [i, { tenant }] of batch.entries()) {
      if (outcomes[i] === undefined || rateBound.tenants.includes(tenant)) continue;
      rateBound.tenants.push(tenant);
      others.tenants.splice(others.tenants.indexOf(tenant), 1);
    }
    const fullAt = outcomes.findIndex((claim) => claim === 'second_full' || claim === 'calls_full');
    const full = fullAt >= 0;
    if (full && rotation === rateBound) rateBound.resumeAt(batch[fullAt]!.tenant);
    return full;
  };
  // The rate-bound tenants' turns, at the start of each second until it is full: their pace is
  // the dial rate's, however long the other tenants' work takes (it runs beside them).
  const rateBoundTurns = async () => {
    while (options.clock() < limit() && (rateBound.hasWork(eligible) || others.hasWork(eligible))) {
      const second = secondOf(options.clock());
      resting = new Set();
      let full = false;
      while (!full && rateBound.hasWork(eligible) && within(second)) {
        const batch = await rateBound.batch(rateBatch, resting, eligible);
        if (batch.length === 0) break;
        full = await run(rateBound, batch);
      }
      if (options.clock() < limit()) await options.sleep(1000 - (options.clock() % 1000));
    }
  };
  // The other tenants' turns, one batch after another: the rate does not hold their work.
  const otherTurns = async () => {
    while (options.clock() < limit() && others.hasWork(eligible)) {
      const batch = await others.batch(ADVANCES_AT_ONCE, new Set(), eligible);
      if (batch.length === 0) break;
      await run(others, batch);
    }
  };
  await Promise.all([rateBoundTurns(), otherTurns()]);
  return started;
}

export async function sweepDueOrders(now: Date, advance: Advance, settings: SweepSettings = {}): Promise<number> {
  const sweepSeconds = settings.sweepSeconds ?? SWEEP_INTERVAL_SECONDS;
  const clock = settings.clock ?? Date.now;
  const tenants = await dueTenants(now);
  // A run paces its calls over one interval from the end of its scan, however long the scan
  // took: the next run, started an interval after this one, scans as long before it dials, so
  // the two take over from each other. Never past the run's limit.
  const scanned = clock();
  const limit = now.getTime() + sweepSeconds * 1000 * RUN_LIMIT_FACTOR;
  const failed: { tenant: string; error: unknown }[] = [];
  const started = await advanceInTurns(tenants, advance, {
    failed,
    share: tenantShare(sweepSeconds, settings.dialsPerSecond),
    dialsPerSecond: settings.dialsPerSecond,
    deadline: Math.min(scanned + sweepSeconds * 1000, limit),
    servedBy: limit,
    clock,
    sleep: settings.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  });
  // The error's class and the tenants only: an order's dial never says more in a log line.
  if (failed.length)
    logger.error('call sweep: advances failed; their orders are looked at again in a later run', {
      failed: failed.length,
      tenants: [...new Set(failed.map((f) => f.tenant))].slice(0, 20),
      errors: [...new Set(failed.map((f) => (f.error as Error)?.name ?? 'Error'))],
    });
  // Every run reports it, zero included, so the alarm sees a backlog clear as well as grow.
  const before = new Date(now.getTime() - sweepSeconds * 1000).toISOString();
  countMetric(
    METRIC.overdueCalls,
    {},
    tenants.reduce((n, t) => n + t.seenWaitingSince(before), 0),
  );
  return started;
}
