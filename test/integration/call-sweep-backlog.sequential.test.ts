/**
 * One call sweep over a backlog of 100,000 due orders across 801 tenants, on DynamoDB Local's
 * due index: the run ends by its deadline (or, while a tenant has not been served, by its limit),
 * reads a page per tenant and shard rather than the backlog, and dials only within the rate (the
 * real dial-rate counter); the big live tenant's calls start at that rate while the small live
 * tenant's one due call starts in the run, however long the scan and the other tenants take.
 *
 * Its own in-memory DynamoDB Local (no runtime: nothing else advances the seeded entries), so
 * it runs with the files that start a runtime of their own, alone.
 */
import { BatchWriteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTableAlone } from '#local/table-alone.ts';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import { keys } from '#shared/storage/keys.ts';

const DIALS_PER_SECOND = 20;
/** Long enough that the run dials for seconds after its scan, which a busy machine makes last half of it. */
const SWEEP_SECONDS = 30;
const SANDBOX_TENANTS = 799;
const PER_SANDBOX_TENANT = 100;
const BIG = 20_099;

let table: Awaited<ReturnType<typeof startTableAlone>> | undefined;
afterAll(() => table?.stop());

const now = new Date();
const ago = (ms: number) => new Date(now.getTime() - ms);

/** An order's item as the index sees it: its key, what the sweep projects, its due entry. */
const dueOrder = (tenant: string, id: string, dueAt: Date) => {
  const pk = keys.order(tenant, id).pk;
  return { pk, sk: 'ORDER', tenant, external_order_id: id, priority: 0, ...keys.orderDue({ pk, tenant, priority: 0 }, dueAt) };
};

beforeAll(async () => {
  table = await startTableAlone();
  const { tableClient, tableName } = await import('#shared/storage/clients.ts');
  const backlog = [
    // The big tenant's morning, due over the last hour; the small tenant's one call, due a moment ago.
    ...Array.from({ length: BIG }, (_, i) => dueOrder('big', `big-${i}`, ago(3_600_000 - i * 100))),
    dueOrder('small', 'small-1', ago(1_000)),
    ...Array.from({ length: SANDBOX_TENANTS * PER_SANDBOX_TENANT }, (_, i) =>
      dueOrder(`sandbox-${String(i % SANDBOX_TENANTS).padStart(3, '0')}`, `s-${i}`, ago(600_000)),
    ),
  ];
  expect(backlog).toHaveLength(100_000);
  const chunks = Array.from({ length: backlog.length / 25 }, (_, i) => backlog.slice(i * 25, i * 25 + 25));
  await mapWithConcurrency(chunks, 8, (chunk) =>
    tableClient().send(new BatchWriteCommand({ RequestItems: { [tableName()]: chunk.map((Item) => ({ PutRequest: { Item } })) } })),
  );
}, 240_000);

describe('a call sweep over 100,000 due orders', () => {
  it('ends by its deadline, reads a page per tenant and shard, dials within the rate: the big tenant at the rate, the small one in the run', async () => {
    const { tableClient, tableName } = await import('#shared/storage/clients.ts');
    const { dynamoDialRate } = await import('#shared/calls/dial-rate.ts');
    const { RUN_LIMIT_FACTOR, sweepDueOrders } = await import('#shared/orders/due-sweep.ts');
    // What the run reads: every item its queries return.
    let itemsRead = 0;
    tableClient().middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        itemsRead += (result.output as { Items?: unknown[] } | undefined)?.Items?.length ?? 0;
        return result;
      },
      { step: 'initialize', name: 'countItemsRead' },
    );
    const rate = dynamoDialRate(DIALS_PER_SECOND);
    const dials: { tenant: string; second: number; at: number }[] = [];
    const sandboxStarts = new Map<string, number>();
    // The advance reads the order, as advanceOrder does; a live tenant's start asks the real dial-rate counter.
    const advance = async (tenant: string, id: string) => {
      await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.order(tenant, id) }));
      if (tenant.startsWith('sandbox-')) {
        sandboxStarts.set(tenant, (sandboxStarts.get(tenant) ?? 0) + 1);
        return {};
      }
      const at = new Date();
      const claim = await rate(at, tenant);
      if (claim === 'placed') dials.push({ tenant, second: Math.floor(at.getTime() / 1000), at: at.getTime() });
      return { dialRate: claim };
    };
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 50);
    const started = Date.now();
    await sweepDueOrders(new Date(), advance, { sweepSeconds: SWEEP_SECONDS, dialsPerSecond: DIALS_PER_SECOND });
    const ranMs = Date.now() - started;
    clearInterval(sampler);

    const perSecond = Object.values(Object.groupBy(dials, (d) => String(d.second))).map((d) => d!.length);
    const bigDials = dials.filter((d) => d.tenant === 'big').length;
    const firstDial = Math.min(...dials.map((d) => d.second));
    const dialSeconds = Math.max(...dials.map((d) => d.second)) - firstDial + 1;
    const figures = {
      ranMs,
      firstDialAfterMs: Math.min(...dials.map((d) => d.at)) - started,
      itemsRead,
      heapGrowthMb: Math.round((heapPeak - heapBefore) / 1e6),
      dials: dials.length,
      bigDials,
      dialSeconds,
      busiestSecond: Math.max(...perSecond),
      perSecond,
      smallDialledAfterS: (dials.find((d) => d.tenant === 'small')?.second ?? Number.NaN) - firstDial,
      sandboxTenantsServed: sandboxStarts.size,
      sandboxStarts: [...sandboxStarts.values()].reduce((a, b) => a + b, 0),
    };
    console.log(`call sweep over 100,000 due orders: ${JSON.stringify(figures)}`);

    // Within its time: the interval after its scan, or, serving a tenant it had not reached, at
    // most its limit; the last batch a moment past; and its memory.
    expect(ranMs, 'the run went past its limit').toBeLessThan(SWEEP_SECONDS * RUN_LIMIT_FACTOR * 1000 + 2000);
    expect(figures.heapGrowthMb).toBeLessThan(128);
    // A page per tenant and shard, not the backlog.
    expect(itemsRead).toBeLessThan(100_000 / 2);
    // Within the rate every second, and at the rate: the big tenant's morning starts at it.
    expect(figures.busiestSecond).toBeLessThanOrEqual(DIALS_PER_SECOND);
    expect(dialSeconds, 'the run dialled over too few seconds to measure its rate').toBeGreaterThanOrEqual(5);
    expect(bigDials, "the big tenant's calls did not start at the dial rate").toBeGreaterThanOrEqual(0.8 * DIALS_PER_SECOND * (dialSeconds - 1));
    // The small tenant's due call starts in this run, though 800 tenants are before it in turn.
    expect(dials.filter((d) => d.tenant === 'small').length, 'the small tenant was not dialled in the run').toBe(1);
  });
});
