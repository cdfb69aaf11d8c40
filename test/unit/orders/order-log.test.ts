/**
 * The order's log (its outbox and history): entries survive their short encoding, a long log
 * moves its older part out without losing an event or changing one, and a PATCH's new
 * correlation id leaves the events before it as they were.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ORDER_STATES } from '#shared/api/order-states.ts';
import { applyOrderChange, type StoredOrder } from '#shared/orders/order.ts';
import { decodeEntry, encodeEntry, eventsOf, historyOf, LOG_LIMIT, type LogEntry, mergedLog } from '#shared/orders/order-log.ts';
import { NOON, order } from './memory-ports.ts';

const instant = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
const entry: fc.Arbitrary<LogEntry> = fc.oneof(
  fc.record({
    kind: fc.constant('status' as const),
    revision: fc.nat(),
    to: fc.constantFrom(...ORDER_STATES),
    reason: fc.option(fc.string({ minLength: 1 }), { nil: null }),
    at: instant,
    causation: fc.option(fc.string(), { nil: null }),
  }),
  fc.record({ kind: fc.constant('status' as const), revision: fc.nat(), to: fc.constantFrom(...ORDER_STATES), reason: fc.constant(null), at: instant }),
  fc.record({ kind: fc.constant('attempt' as const), revision: fc.nat(), attempt: fc.nat(), at: instant, causeRevision: fc.nat() }),
  fc.record({ kind: fc.constant('result' as const), revision: fc.nat(), at: instant, causeRevision: fc.nat() }),
  fc.record({ kind: fc.constant('correlation' as const), revision: fc.nat(), before: fc.string() }),
);

describe("an order's log", () => {
  it('reads back every entry as written, whatever its reason or causation holds', () => {
    fc.assert(
      fc.property(entry, (e) => {
        expect(decodeEntry(encodeEntry(e))).toEqual(e);
      }),
    );
  });

  it('moves its older entries out past LOG_LIMIT; the order and its history items together still give every event, unchanged', () => {
    let current: StoredOrder = order('o-1');
    const moved: string[][] = [];
    const identity = { ...current };
    // PATCH cycles: validated with a new correlation id, then scheduled again.
    const states = ['validated', 'scheduled'] as const;
    for (let i = 0; i < 40; i++) {
      const to = states[i % 2]!;
      const { next, items } = applyOrderChange(
        current,
        { to, ...(to === 'validated' ? { set: { correlation_id: `cor_${i}` } } : {}) },
        new Date(NOON.getTime() + i * 1000),
      );
      for (const item of items) moved.push((item as { log: string[] }).log);
      current = next;
      expect(current.log.length).toBeLessThanOrEqual(LOG_LIMIT);
    }
    expect(moved.length).toBeGreaterThan(3);
    const whole = mergedLog(...moved, current.log);
    const history = historyOf(whole);
    expect(history).toHaveLength(41);
    expect(history.map((h) => h.from)).toEqual([null, ...history.slice(0, -1).map((h) => h.to)]);
    const events = eventsOf({ ...identity, correlation_id: current.correlation_id }, whole, { attempts: new Map(), result: undefined });
    // Each event keeps the correlation id the order had when it happened.
    expect(events.map((e) => e.correlation_id)).toEqual(['cor_1', ...Array.from({ length: 40 }, (_, i) => `cor_${i - (i % 2)}`)]);
    // The events of the newest write, read from the order alone, are the same as from the whole log.
    const fromOrder = eventsOf(
      { ...identity, correlation_id: current.correlation_id },
      current.log,
      { attempts: new Map(), result: undefined },
      current.revision - 1,
    );
    expect(fromOrder).toEqual(events.slice(-1));
  });
});
