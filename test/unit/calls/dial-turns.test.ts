/** The dial rate's shares: while tenants contend, none gets more than a few dials ahead of the one furthest behind. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SHARE_SLACK, withinShare } from '#shared/calls/dial-rate.ts';

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
});
