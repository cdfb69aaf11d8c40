/** The dial rate's turns: while more tenants want to dial than a second has places, each gets the same share. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inTurn } from '#shared/calls/dial-rate.ts';

describe('the dial turns of contending tenants', () => {
  it('lets exactly the rate of them dial each second, and each the same number over as many seconds as there are tenants', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 5 }),
        fc.nat(1e9),
        (tenants, rate, start) => {
          const counts = new Map(tenants.map((t) => [t, 0]));
          for (let second = start; second < start + tenants.length; second++) {
            const allowed = tenants.filter((t) => inTurn(tenants, t, second, rate));
            expect(allowed).toHaveLength(Math.min(rate, tenants.length));
            for (const t of allowed) counts.set(t, counts.get(t)! + 1);
          }
          expect(new Set(counts.values()).size).toBe(1);
        },
      ),
    );
  });

  it('lets a tenant new to the contention compete at once', () => {
    expect(inTurn(['a', 'b', 'c'], 'newcomer', 7, 1)).toBe(true);
  });
});
