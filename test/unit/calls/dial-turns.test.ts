/** The dial rate's shares: while tenants contend, none gets more than a few dials ahead of the one furthest behind. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contenders, SHARE_SLACK, withinShare } from '#shared/calls/dial-rate.ts';

describe('the dial shares of contending tenants', () => {
  it('keeps every tenant within the slack of the one furthest behind, whoever tries first each second', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 8 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.nat(), { minLength: 50, maxLength: 200 }),
        (tenants, rate, order) => {
          const dials = new Map(Array.from({ length: tenants }, (_, i) => [`t${i}`, 0]));
          // Each second, tenants try in an order the property picks; the rate lets `rate` through.
          for (const [second, seed] of order.entries()) {
            let placed = 0;
            for (let k = 0; k < tenants && placed < rate; k++) {
              const tenant = `t${(seed + k + second) % tenants}`;
              if (!withinShare(dials, tenant)) continue;
              dials.set(tenant, dials.get(tenant)! + 1);
              placed++;
            }
            const counts = [...dials.values()];
            expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(SHARE_SLACK + 1);
          }
        },
      ),
    );
  });

  it('lets a tenant alone dial as often as the rate allows', () => {
    expect(withinShare(new Map([['a', 40]]), 'a')).toBe(true);
  });

  it('holds no one back for a tenant that got its call and waits for no other', () => {
    const second = 1_000_000;
    const window = (waitingSince: Record<string, number>, dials: Record<string, number>) => ({
      waitingSince: new Map(Object.entries(waitingSince)),
      dials: new Map(Object.entries(dials)),
    });
    const previous = window({}, {});
    // `small` got its one dial and was never refused; `big` has dialled 30 times and was refused a moment ago.
    const dialled = window({ big: second }, { big: 30, small: 1 });
    expect([...contenders(dialled, previous, second, 'big').keys()]).toEqual(['big']);
    expect(withinShare(contenders(dialled, previous, second, 'big'), 'big')).toBe(true);
    // While `small` waits (refused this second or the one before), `big` waits for it to catch up.
    const waiting = window({ big: second, small: second - 1 }, { big: 30, small: 1 });
    expect(withinShare(contenders(waiting, previous, second, 'big'), 'big')).toBe(false);
    expect(withinShare(contenders(waiting, previous, second, 'small'), 'small')).toBe(true);
    // Refused three seconds ago and not since: it no longer waits.
    const gone = window({ big: second, small: second - 3 }, { big: 30, small: 1 });
    expect(withinShare(contenders(gone, previous, second, 'big'), 'big')).toBe(true);
  });
});
