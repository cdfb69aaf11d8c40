/**
 * Order processing on in-memory ports: the domain's path from `received` to a final state,
 * with no table, queue or clock of its own.
 */
import { describe, expect, it } from 'vitest';
import { MAX_SALES_RULES } from '#shared/api/limits.ts';
import { MAX_LOST_ATTEMPTS } from '#shared/orders/call-outcome.ts';
import { dueOf, erasedCustomerFields, STREAM_RECOVERY_SECONDS } from '#shared/orders/order.ts';
import { orderProcessing, type ProcessingPorts, recordFinishedCall } from '#shared/orders/processing.ts';
import type { SalesRule } from '#shared/rules/rule-schemas.ts';
import { eventsOfOrder, NOON, order, ports, statesOf } from './memory-ports.ts';

describe('order processing on in-memory ports', () => {
  it('takes an order from received through qualification, scheduling and the call to a confirmed result', async () => {
    const p = ports('+4915100000000');
    p.orders.orders.set('acme/o-1', order('o-1'));
    await orderProcessing(p).advanceOrder('acme', 'o-1', () => NOON);
    const done = p.orders.orders.get('acme/o-1')!;
    expect(done.processing_state).toBe('completed');
    expect(statesOf(p.orders, 'o-1')).toEqual(['received', 'validated', 'scheduled', 'in_call', 'completed']);
    const result = p.orders.items.find((i) => (i as { entity?: string }).entity === 'result') as { business_outcome: string };
    expect(result.business_outcome).toBe('confirmed');
    // Every state change has its event, and the call its attempt and result events.
    expect(eventsOfOrder(p.orders, 'o-1').map((e) => e.event_type)).toEqual([
      ...Array(5).fill('commerce.order.status_changed.v1'),
      'commerce.call.attempt_completed.v1',
      'commerce.order.result_ready.v1',
    ]);
  });

  it('writes the states a run decides before any call once: qualified and scheduled in one write, in_call on its own before the dial', async () => {
    const p = ports('+4915100000000');
    const later = { ...order('o-20'), contact_not_before: '2027-06-01T09:00:00Z' };
    p.orders.orders.set('acme/o-20', later);
    await orderProcessing(p).advanceOrder('acme', 'o-20', () => NOON);
    expect(p.orders.writes).toEqual(['scheduled']);
    // Both changes keep their status events, each under its own revision, the second caused by the first.
    const events = eventsOfOrder(p.orders, 'o-20').slice(1) as unknown as {
      sk: string;
      event_id: string;
      causation_id: string | null;
      data: { processing_state: string };
    }[];
    expect(events.map((e) => [e.sk, e.data.processing_state])).toEqual([
      ['EVENT#000002', 'validated'],
      ['EVENT#000003', 'scheduled'],
    ]);
    expect(events[1]!.causation_id).toBe(events[0]!.event_id);
    expect(p.orders.orders.get('acme/o-20')).toMatchObject({ revision: 3, status_revision: 3, processing_state: 'scheduled' });

    const now = ports('+4915100000000');
    now.orders.orders.set('acme/o-21', order('o-21'));
    await orderProcessing(now).advanceOrder('acme', 'o-21', () => NOON);
    // Scheduled (with validated) first, then in_call durable before the dial is claimed, then the call's outcome.
    expect(now.orders.writes).toEqual(['scheduled', 'in_call', 'in_call', 'completed']);
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

  it('checks a PATCH naming a variant not indexed yet again after the grace, and rejects it then, however far its contact time', async () => {
    const p = ports('+4915100000000');
    const patched = {
      ...order('o-13', 'never-imported'),
      processing_state: 'validated' as const,
      contact_not_before: '2027-06-01T09:00:00Z',
      content_changed_at: NOON.toISOString(),
    };
    p.orders.orders.set('acme/o-13', patched);
    const processing = orderProcessing(p);
    await processing.advanceOrder('acme', 'o-13', () => NOON);
    const waiting = p.orders.orders.get('acme/o-13')!;
    expect(waiting).toMatchObject({ processing_state: 'validated', retry_qualification_at: expect.any(String) });
    expect(dueOf(waiting, NOON)?.toISOString()).toBe(waiting.retry_qualification_at);
    await processing.advanceOrder('acme', 'o-13', () => new Date(NOON.getTime() + 61_000));
    expect(p.orders.orders.get('acme/o-13')).toMatchObject({ processing_state: 'rejected', state_reason: 'unknown_variant' });
  });

  it('gives a PATCH the grace a new order gets: a variant not indexed yet is checked again before the call, and rejects only after the grace', async () => {
    const p = ports('+4915100000000');
    const patched = {
      ...order('o-5', 'just-imported'),
      processing_state: 'scheduled' as const,
      next_contact_at: NOON.toISOString(),
      content_changed_at: NOON.toISOString(),
    };
    p.orders.orders.set('acme/o-5', patched);
    const processing = orderProcessing(p);
    expect(await processing.ports.orders.read('acme', 'o-5').then((o) => processing.requalify(o!, NOON))).toMatchObject({ to: 'validated' });
    await processing.advanceOrder('acme', 'o-5', () => NOON);
    expect(p.orders.orders.get('acme/o-5')).toMatchObject({ processing_state: 'scheduled', call_attempts: 0 });
    expect(Date.parse(p.orders.orders.get('acme/o-5')!.next_contact_at!)).toBeGreaterThan(NOON.getTime());
    await processing.advanceOrder('acme', 'o-5', () => new Date(NOON.getTime() + 61_000));
    expect(p.orders.orders.get('acme/o-5')).toMatchObject({ processing_state: 'rejected', state_reason: 'unknown_variant' });
  });

  it("recovers an order left in a call by a crash once the platform's longest call has passed, and retries it", async () => {
    const p = ports('+4915100000000');
    const inCall = {
      ...order('o-6'),
      processing_state: 'in_call' as const,
      call_attempts: 1,
      call_deadline_at: new Date(NOON.getTime() + 60_000).toISOString(),
    };
    p.orders.orders.set('acme/o-6', inCall);
    const processing = orderProcessing(p);
    await processing.advanceOrder('acme', 'o-6', () => new Date(NOON.getTime() + 30_000));
    expect(p.orders.orders.get('acme/o-6')?.processing_state).toBe('in_call');
    await processing.advanceOrder('acme', 'o-6', () => new Date(NOON.getTime() + 61_000));
    const recovered = p.orders.orders.get('acme/o-6')!;
    expect(recovered.processing_state).toBe('completed');
    expect(recovered.call_attempts).toBe(2);
    const attempts = p.orders.items.filter((i) => (i as { entity?: string }).entity === 'call_attempt') as { attempt: number; call_disposition: string }[];
    expect(attempts.map((a) => [a.attempt, a.call_disposition])).toEqual([
      [1, 'failed'],
      [2, 'answered'],
    ]);
  });

  it('keeps the attempt of a call that a cancel overtook: the order ends cancelled and its history has the call', async () => {
    const p = ports('+4915100000000');
    p.orders.orders.set('acme/o-7', order('o-7'));
    const dial = p.callPlatforms.sandbox.startAttempt;
    // The partner cancels while the dialer is on the phone.
    p.callPlatforms.sandbox = {
      ...p.callPlatforms.sandbox,
      startAttempt: async (request, now) => {
        const live = (await p.orders.read('acme', 'o-7'))!;
        await p.orders.write(live, { to: 'cancelled', reason: 'customer_request', set: { next_contact_at: null } }, now);
        return dial(request, now);
      },
    };
    await orderProcessing(p).advanceOrder('acme', 'o-7', () => NOON);
    const o7 = p.orders.orders.get('acme/o-7')!;
    expect(o7.processing_state).toBe('cancelled');
    expect(statesOf(p.orders, 'o-7')).toEqual(['received', 'validated', 'scheduled', 'in_call', 'cancelled']);
    const attempts = p.orders.items.filter((i) => (i as { entity?: string }).entity === 'call_attempt');
    expect(attempts).toEqual([expect.objectContaining({ attempt: 1, call_disposition: 'answered' })]);
    expect(eventsOfOrder(p.orders, 'o-7').filter((e) => e.event_type === 'commerce.call.attempt_completed.v1')).toHaveLength(1);
    expect(p.orders.items.some((i) => (i as { entity?: string }).entity === 'result')).toBe(false);
  });

  it("records the attempt of a call a cancel overtook when the run that had its report died: at the call's deadline, from the due index", async () => {
    const p = ports('+4915100000000');
    p.orders.orders.set('acme/o-9', order('o-9'));
    const dial = p.callPlatforms.sandbox.startAttempt;
    const write = p.orders.write;
    p.callPlatforms.sandbox = {
      ...p.callPlatforms.sandbox,
      startAttempt: async (request, now) => {
        const live = (await p.orders.read('acme', 'o-9'))!;
        await write(live, { to: 'cancelled', reason: 'customer_request', set: { next_contact_at: null } }, now);
        // The run dies once the attempt has gone ahead of the order's write, as the table writes it (a kill, a fault): the report is lost.
        p.orders.write = async (_o, change) => {
          if (change.calls) p.orders.items.push(change.calls.attempt);
          throw new Error('killed');
        };
        return dial(request, now);
      },
    };
    await expect(orderProcessing(p).advanceOrder('acme', 'o-9', () => NOON)).rejects.toThrow('killed');
    p.orders.write = write;
    const cancelled = p.orders.orders.get('acme/o-9')!;
    expect(cancelled.processing_state).toBe('cancelled');
    const attemptEvents = () => eventsOfOrder(p.orders, 'o-9').filter((e) => e.event_type === 'commerce.call.attempt_completed.v1');
    expect(attemptEvents()).toHaveLength(0);
    const deadline = dueOf(cancelled, NOON)!;
    expect(deadline.toISOString()).toBe(cancelled.call_deadline_at);

    await orderProcessing(p).advanceOrder('acme', 'o-9', () => new Date(deadline.getTime() - 1_000));
    expect(attemptEvents()).toHaveLength(0);
    await orderProcessing(p).advanceOrder('acme', 'o-9', () => new Date(deadline.getTime() + 1_000));
    const recorded = p.orders.orders.get('acme/o-9')!;
    expect(recorded.processing_state).toBe('cancelled');
    expect(attemptEvents()).toEqual([expect.objectContaining({ data: expect.objectContaining({ attempt: 1 }) })]);
    // The attempt item that went ahead keeps the call's own outcome; the order leaves the scheduler.
    const attempts = p.orders.items.filter((i) => (i as { entity?: string }).entity === 'call_attempt');
    expect(attempts).toEqual([expect.objectContaining({ attempt: 1, call_disposition: 'answered' })]);
    expect(dueOf(recorded, NOON)).toBeUndefined();
  });

  it('calls no one when a cancel lands between the in_call write and the dial: the dial is claimed first, and the cancel wins', async () => {
    const p = ports('+4915100000000');
    p.orders.orders.set('acme/o-8', order('o-8'));
    const write = p.orders.write;
    p.orders.write = async (o, change, now) => {
      const written = await write(o, change, now);
      // The partner's cancel arrives right after the order went in_call, before anyone dials.
      if (change.to === 'in_call') await write(written, { to: 'cancelled', reason: 'customer_request', set: { next_contact_at: null } }, now);
      return written;
    };
    const dialled: number[] = [];
    const dial = p.callPlatforms.sandbox.startAttempt;
    p.callPlatforms.sandbox = {
      ...p.callPlatforms.sandbox,
      startAttempt: async (request, now) => {
        dialled.push(request.attempt);
        return dial(request, now);
      },
    };
    await orderProcessing(p).advanceOrder('acme', 'o-8', () => NOON);
    expect(dialled).toEqual([]);
    expect(p.orders.orders.get('acme/o-8')!.processing_state).toBe('cancelled');
    expect(p.orders.items.some((i) => (i as { entity?: string }).entity === 'call_attempt')).toBe(false);
  });

  it("keeps a call's real outcome when an erasure scrubbed the order during the call, and a report that comes again once", async () => {
    const p = ports('+4915100000000');
    p.orders.orders.set('acme/o-9', order('o-9'));
    let report: Parameters<typeof recordFinishedCall>[2] | undefined;
    const dial = p.callPlatforms.sandbox.startAttempt;
    // A real platform answers "pending" and reports when the call ends; meanwhile the customer is erased.
    p.callPlatforms.sandbox = {
      ...p.callPlatforms.sandbox,
      startAttempt: async (request, now) => {
        report = (await dial(request, now)) as typeof report;
        return 'pending';
      },
    };
    await orderProcessing(p).advanceOrder('acme', 'o-9', () => NOON);
    const inCall = p.orders.orders.get('acme/o-9')!;
    expect(inCall.processing_state).toBe('in_call');
    // The erasure job scrubs the order it finds in a call (a call under way is not rejected): its revision moves on.
    await p.orders.write(inCall, { set: erasedCustomerFields(inCall) }, NOON);
    await recordFinishedCall(p, inCall, report!, NOON);
    await recordFinishedCall(p, inCall, report!, NOON);
    expect(p.orders.orders.get('acme/o-9')!.processing_state).toBe('completed');
    const attempts = p.orders.items.filter((i) => (i as { entity?: string }).entity === 'call_attempt');
    expect(attempts).toEqual([expect.objectContaining({ attempt: 1, call_disposition: 'answered' })]);
    expect(p.orders.items.filter((i) => (i as { entity?: string }).entity === 'result')).toHaveLength(1);
  });

  it('leaves every order that waits for work findable in the due index, so a skipped stream record cannot strand it', () => {
    const o = order('o-8');
    expect(dueOf({ ...o, processing_state: 'received' }, NOON)?.toISOString()).toBe(new Date(NOON.getTime() + STREAM_RECOVERY_SECONDS * 1000).toISOString());
    expect(dueOf({ ...o, processing_state: 'validated' }, NOON)?.getTime()).toBe(NOON.getTime() + STREAM_RECOVERY_SECONDS * 1000);
    expect(dueOf({ ...o, processing_state: 'scheduled', next_contact_at: '2026-12-01T09:00:00.000Z' }, NOON)?.toISOString()).toBe('2026-12-01T09:00:00.000Z');
    for (const state of ['completed', 'cancelled', 'rejected'] as const) expect(dueOf({ ...o, processing_state: state }, NOON)).toBeUndefined();
  });

  it('takes a stranded received order to its end when the call scheduler finds it, as the stream would have', async () => {
    const p = ports('+4915100000000');
    p.orders.orders.set('acme/o-9', order('o-9'));
    // No stream record ever came: the sweep advances it once its due time passes.
    await orderProcessing(p).advanceOrder('acme', 'o-9', () => new Date(NOON.getTime() + STREAM_RECOVERY_SECONDS * 1000));
    expect(p.orders.orders.get('acme/o-9')?.processing_state).toBe('completed');
  });

  it('calls no customer of a suspended tenant: its orders wait, scheduled, and are called once it is active again', async () => {
    const p = ports('+4915100000000');
    const config = await p.tenantConfigOf('acme');
    let status: 'active' | 'suspended' = 'suspended';
    p.tenantConfigOf = async () => ({ ...config, status });
    p.orders.orders.set('acme/o-10', order('o-10'));
    const processing = orderProcessing(p);
    await processing.advanceOrder('acme', 'o-10', () => NOON);
    expect(p.orders.orders.get('acme/o-10')).toMatchObject({ processing_state: 'scheduled', call_attempts: 0 });
    expect(Date.parse(p.orders.orders.get('acme/o-10')!.next_contact_at!)).toBe(NOON.getTime() + 5 * 60_000);
    status = 'active';
    await processing.advanceOrder('acme', 'o-10', () => new Date(NOON.getTime() + 5 * 60_000));
    expect(p.orders.orders.get('acme/o-10')).toMatchObject({ processing_state: 'completed', call_attempts: 1 });
  });

  it('does not count attempts the platform lost: "busy, then confirmed" with one attempt lost to a kill and one to a fault still ends confirmed', async () => {
    const p = ports('+4915100000005');
    const config = await p.tenantConfigOf('acme');
    p.tenantConfigOf = async () => ({ ...config, max_call_attempts: 2 });
    const dial = p.callPlatforms.sandbox.startAttempt;
    const losses: (() => Promise<never>)[] = [
      // Killed: the invocation ends while the dialer is busy, and no answer is ever recorded.
      () => new Promise<never>(() => undefined),
      // A fault: the call was started, then the function's next AWS call failed for good.
      async () => {
        throw new Error('ProvisionedThroughputExceededException');
      },
    ];
    let calls = 0;
    p.callPlatforms.sandbox = {
      ...p.callPlatforms.sandbox,
      startAttempt: (request, now) => (++calls === 2 || calls === 3 ? losses[calls - 2]!() : dial(request, now)),
    };
    p.orders.orders.set('acme/o-11', order('o-11'));
    p.settings = { ...p.settings, callRetryDelaySeconds: 30 };
    const processing = orderProcessing(p);
    const at = (seconds: number) => () => new Date(NOON.getTime() + seconds * 1000);
    await processing.advanceOrder('acme', 'o-11', at(0)); // attempt 1: busy
    void processing.advanceOrder('acme', 'o-11', at(30)); // attempt 2: killed, never returns
    await new Promise((r) => setTimeout(r, 10));
    expect(p.orders.orders.get('acme/o-11')).toMatchObject({ processing_state: 'in_call', call_attempts: 2 });
    await processing.advanceOrder('acme', 'o-11', at(91)); // past the platform's longest call: recovered as failed
    await expect(processing.advanceOrder('acme', 'o-11', at(121))).rejects.toThrow('ProvisionedThroughputExceededException'); // attempt 3
    await processing.advanceOrder('acme', 'o-11', at(182)); // recovered as failed
    await processing.advanceOrder('acme', 'o-11', at(212)); // attempt 4: confirmed

    const done = p.orders.orders.get('acme/o-11')!;
    expect(done).toMatchObject({ processing_state: 'completed', call_attempts: 4, lost_attempts: 2 });
    const attempts = p.orders.items.filter((i) => (i as { entity?: string }).entity === 'call_attempt') as { attempt: number; call_disposition: string }[];
    expect(attempts.map((a) => [a.attempt, a.call_disposition])).toEqual([
      [1, 'busy'],
      [2, 'failed'],
      [3, 'failed'],
      [4, 'answered'],
    ]);
    expect(p.orders.items.find((i) => (i as { entity?: string }).entity === 'result')).toMatchObject({ business_outcome: 'confirmed' });
  });

  it(`ends an order whose every call the platform lost as unreachable after ${MAX_LOST_ATTEMPTS} losses, its last disposition failed`, async () => {
    const p = ports('+4915100000000');
    p.callPlatforms.sandbox = {
      ...p.callPlatforms.sandbox,
      startAttempt: async () => {
        throw new Error('dialer down');
      },
    };
    p.orders.orders.set('acme/o-12', order('o-12'));
    const processing = orderProcessing(p);
    let t = NOON.getTime();
    for (let run = 0; run <= MAX_LOST_ATTEMPTS; run++) {
      await processing.advanceOrder('acme', 'o-12', () => new Date(t)).catch(() => undefined);
      t += 61_000;
    }
    expect(p.orders.orders.get('acme/o-12')).toMatchObject({
      processing_state: 'completed',
      call_attempts: MAX_LOST_ATTEMPTS,
      lost_attempts: MAX_LOST_ATTEMPTS,
    });
    expect(p.orders.items.find((i) => (i as { entity?: string }).entity === 'result')).toMatchObject({
      business_outcome: 'unreachable',
      call_disposition: 'failed',
    });
  });

  it('reads only the order’s own variants and its applicable rules’ targets, however many rules the tenant has', async () => {
    const p = ports('+4915100000000');
    const rule = (id: string, appliesTo: Record<string, unknown>, target: string): SalesRule => ({
      external_rule_id: id,
      rule_type: 'upsell',
      priority: 0,
      enabled: true,
      status: 'active',
      applies_to: appliesTo,
      action: { suggest_variant: target },
      source_version: '1',
      archived_at: null,
      created_at: NOON.toISOString(),
      updated_at: NOON.toISOString(),
    });
    const rules = [
      ...Array.from({ length: MAX_SALES_RULES - 1 }, (_, i) => rule(`other-${i}`, { external_product_ids: [`product-${i}`] }, `target-${i}`)),
      rule('for-beans', { external_variant_ids: ['beans'] }, 'beans-1kg'),
    ];
    const asked: string[][] = [];
    const resolve = p.variants.resolve;
    const counted: ProcessingPorts = {
      ...p,
      rules: { active: async () => rules },
      variants: {
        resolve: (tenant, ids) => {
          asked.push([...ids]);
          return resolve(tenant, ids);
        },
      },
    };
    p.orders.orders.set('acme/o-rules', order('o-rules'));
    await orderProcessing(counted).advanceOrder('acme', 'o-rules', () => NOON);
    expect(p.orders.orders.get('acme/o-rules')!.processing_state).toBe('completed');
    // One run reads its facts once: the line's variant, then the one applicable rule's target.
    expect(asked).toEqual([['beans'], ['beans-1kg']]);
  });
});
