/**
 * A live platform's attempts on in-memory ports: a platform that reports later (`pending`), a
 * dial rate that is full, a dial the platform throttles, a report that comes twice or never.
 */
import { describe, expect, it } from 'vitest';
import { type AttemptKey, type AttemptReport, type CallPlatform, type DialRate, DialThrottled } from '#shared/calls/call-platform.ts';
import { orderProcessing } from '#shared/orders/processing.ts';
import { TenantConfigSchema } from '#shared/tenants/config.ts';
import { NOON, order, ports } from './memory-ports.ts';

const liveConfig = TenantConfigSchema.parse({ mode: 'live', markets: [{ country: 'DE', locale_default: 'de-DE', calling_days: [1, 2, 3, 4, 5, 6, 7] }] });

/** A live platform that answers `pending` (or throws what `refuse` gives) and says what it was asked. */
function livePlatform(refuse: () => Error | undefined = () => undefined, outcome?: AttemptReport | 'ongoing') {
  const dials: number[] = [];
  const stops: AttemptKey[] = [];
  const platform: CallPlatform = {
    name: 'live-test',
    stuckAfterSeconds: 600,
    async startAttempt(request) {
      const refused = refuse();
      if (refused) throw refused;
      dials.push(request.attempt);
      return 'pending';
    },
    async cancel(key) {
      stops.push(key);
    },
    async erase() {},
    outcomeOf: async () => outcome,
  };
  return { platform, dials, stops };
}

function livePorts(platform: CallPlatform, dialRate?: DialRate) {
  const p = ports('+4915100000000');
  return { ...p, tenantConfigOf: async () => liveConfig, callPlatforms: { ...p.callPlatforms, live: platform }, dialRate };
}

const answered: AttemptReport = { call_disposition: 'answered', decision: 'confirmed', started_at: NOON.toISOString(), ended_at: NOON.toISOString() };

describe("a live platform's attempts", () => {
  it('dials once and waits in_call; its report, however often it comes, completes the order with one attempt', async () => {
    const { platform, dials } = livePlatform();
    const p = livePorts(platform);
    p.orders.orders.set('acme/l-1', order('l-1'));
    const processing = orderProcessing(p);
    await processing.advanceOrder('acme', 'l-1', () => NOON);
    expect(p.orders.orders.get('acme/l-1')).toMatchObject({ processing_state: 'in_call', call_attempts: 1 });
    expect(dials).toEqual([1]);
    const key = { tenant: 'acme', external_order_id: 'l-1', attempt: 1 };
    await processing.reportAttempt(key, answered, NOON);
    await processing.reportAttempt(key, { ...answered, call_disposition: 'no_answer' }, NOON);
    expect(p.orders.orders.get('acme/l-1')).toMatchObject({ processing_state: 'completed', call_attempts: 1 });
    expect(p.orders.items.filter((i) => (i as { entity?: string }).entity === 'call_attempt')).toHaveLength(1);
  });

  it('leaves the order scheduled, with no attempt used, while the dial rate is full', async () => {
    const { platform, dials } = livePlatform();
    const p = livePorts(platform, async () => 'second_full');
    p.orders.orders.set('acme/l-2', order('l-2'));
    await orderProcessing(p).advanceOrder('acme', 'l-2', () => NOON);
    expect(p.orders.orders.get('acme/l-2')).toMatchObject({ processing_state: 'scheduled', call_attempts: 0 });
    expect(Date.parse(p.orders.orders.get('acme/l-2')!.next_contact_at!)).toBe(NOON.getTime() + 1_000);
    expect(dials).toEqual([]);
  });

  it('dials a throttled attempt again as the same attempt once its moment comes', async () => {
    let throttles = 1;
    const { platform, dials } = livePlatform(() => (throttles-- > 0 ? new DialThrottled('throttled') : undefined));
    const p = livePorts(platform);
    p.orders.orders.set('acme/l-3', order('l-3'));
    await orderProcessing(p).advanceOrder('acme', 'l-3', () => NOON);
    expect(p.orders.orders.get('acme/l-3')).toMatchObject({
      processing_state: 'in_call',
      call_attempts: 1,
      redial_at: new Date(NOON.getTime() + 1_000).toISOString(),
    });
    await orderProcessing(p).advanceOrder('acme', 'l-3', () => new Date(NOON.getTime() + 1_000));
    expect(dials).toEqual([1]);
    expect(p.orders.orders.get('acme/l-3')).toMatchObject({ processing_state: 'in_call', call_attempts: 1, redial_at: undefined });
  });

  it('asks the platform at the deadline: its outcome is recorded, a call still running is looked at again later', async () => {
    const { platform } = livePlatform(undefined, answered);
    const p = livePorts(platform);
    p.orders.orders.set('acme/l-4', order('l-4'));
    await orderProcessing(p).advanceOrder('acme', 'l-4', () => NOON);
    await orderProcessing(p).advanceOrder('acme', 'l-4', () => new Date(NOON.getTime() + 601_000));
    expect(p.orders.orders.get('acme/l-4')).toMatchObject({ processing_state: 'completed', call_attempts: 1 });

    const ongoing = livePorts(livePlatform(undefined, 'ongoing').platform);
    ongoing.orders.orders.set('acme/l-5', order('l-5'));
    await orderProcessing(ongoing).advanceOrder('acme', 'l-5', () => NOON);
    await orderProcessing(ongoing).advanceOrder('acme', 'l-5', () => new Date(NOON.getTime() + 601_000));
    expect(ongoing.orders.orders.get('acme/l-5')).toMatchObject({
      processing_state: 'in_call',
      call_deadline_at: new Date(NOON.getTime() + 661_000).toISOString(),
    });
  });
});
