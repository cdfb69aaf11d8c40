/** The places of live calls in flight: the lowest free one taken, and tenants kept to their share while others want one. */
import { describe, expect, it } from 'vitest';
import { freeSlot, type HeldSlot, withinSlotShare } from '#shared/calls/call-slots.ts';

const held = (...tenants: string[]): HeldSlot[] => tenants.map((tenant, slot) => ({ slot, holder: `h${slot}`, tenant }));

describe('the places of live calls in flight', () => {
  it('takes the lowest place no call holds, and none when every one is held', () => {
    expect(freeSlot([], 3)).toBe(0);
    expect(
      freeSlot(
        [
          { slot: 0, holder: 'a', tenant: 't' },
          { slot: 2, holder: 'b', tenant: 't' },
        ],
        3,
      ),
    ).toBe(1);
    expect(freeSlot(held('t', 't', 't'), 3)).toBeUndefined();
  });

  it('lets a tenant alone use every place, and keeps each of several to its share of them', () => {
    expect(withinSlotShare(held('big', 'big', 'big'), 'big', 10)).toBe(true);
    // Two tenants: at most 5 of 10 each, so the small one always finds a place as the big one's calls end.
    expect(withinSlotShare(held('big', 'big', 'big', 'big', 'big', 'small'), 'big', 10)).toBe(false);
    expect(withinSlotShare(held('big', 'big', 'big', 'big', 'big', 'small'), 'small', 10)).toBe(true);
    // A tenant asking for its first place counts among those that share them.
    expect(withinSlotShare(held('big', 'big', 'big', 'big', 'big', 'big'), 'new', 10)).toBe(true);
    expect(withinSlotShare(held('big', 'big', 'big', 'big', 'big'), 'big', 10)).toBe(true);
  });
});
