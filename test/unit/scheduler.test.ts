import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CallingWindow, isCallable, localParts, nextContactAt } from '#shared/orders/scheduler.ts';

const berlinWeekdays: CallingWindow = { timezone: 'Europe/Berlin', callingDays: [1, 2, 3, 4, 5], quietStartHour: 21, quietEndHour: 8 };

describe('nextContactAt', () => {
  it('moves a Friday 22:30 Berlin contact to Monday 08:00 Berlin', () => {
    expect(nextContactAt(new Date('2026-11-20T21:30:00Z'), berlinWeekdays).toISOString()).toBe('2026-11-23T07:00:00.000Z');
  });

  it('keeps a callable instant as it is', () => {
    expect(nextContactAt(new Date('2026-11-23T10:15:42Z'), berlinWeekdays).toISOString()).toBe('2026-11-23T10:15:42.000Z');
  });

  it('follows daylight-saving changes: 08:00 local is 07:00 UTC in winter and 06:00 UTC in summer', () => {
    // Sunday 29 March 2026 Berlin springs forward; Monday 08:00 CEST is 06:00 UTC.
    expect(nextContactAt(new Date('2026-03-27T21:00:00Z'), berlinWeekdays).toISOString()).toBe('2026-03-30T06:00:00.000Z');
    // Sunday 25 October 2026 falls back; Monday 08:00 CET is 07:00 UTC.
    expect(nextContactAt(new Date('2026-10-23T20:00:00Z'), berlinWeekdays).toISOString()).toBe('2026-10-26T07:00:00.000Z');
  });

  it('handles zones with half-hour offsets and quiet hours that do not wrap midnight', () => {
    const kolkata: CallingWindow = { timezone: 'Asia/Kolkata', callingDays: [1, 2, 3, 4, 5, 6, 7], quietStartHour: 13, quietEndHour: 14 };
    // 13:10 IST is 07:40 UTC; the quiet hour ends at 14:00 IST = 08:30 UTC.
    expect(nextContactAt(new Date('2026-11-22T07:40:00Z'), kolkata).toISOString()).toBe('2026-11-22T08:30:00.000Z');
  });

  it('opens a window at a daylight-saving change that is not on a whole local hour (Chatham moves 02:45 to 03:45)', () => {
    const chathamEarlyHours: CallingWindow = { timezone: 'Pacific/Chatham', callingDays: [7, 1], quietStartHour: 5, quietEndHour: 3 };
    // Monday 21 Sep 05:00 local is quiet; the next callable instant is Sunday 27 Sep at the change, 02:45 +12:45 = 03:45 +13:45 = 14:00 UTC.
    expect(nextContactAt(new Date('2026-09-20T16:15:00Z'), chathamEarlyHours).toISOString()).toBe('2026-09-26T14:00:00.000Z');
  });

  it('property: never inside quiet hours, never on a non-calling day, never before contact_not_before, and the earliest such instant', () => {
    const zones = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham', 'UTC', 'America/Sao_Paulo'];
    const window = fc.record({
      timezone: fc.constantFrom(...zones),
      callingDays: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
      quietStartHour: fc.integer({ min: 0, max: 23 }),
      quietEndHour: fc.integer({ min: 0, max: 23 }),
    });
    const instant = fc.date({ min: new Date('2024-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true });
    fc.assert(
      fc.property(instant, window, (notBefore, w) => {
        const at = nextContactAt(notBefore, w);
        expect(at.getTime()).toBeGreaterThanOrEqual(notBefore.getTime());
        expect(isCallable(at, w)).toBe(true);
        const local = localParts(at, w.timezone);
        expect(w.callingDays).toContain(local.weekday);
        if (at.getTime() > notBefore.getTime()) {
          // It starts a callable hour: the second before it was not callable (or before notBefore).
          const before = new Date(at.getTime() - 1000);
          expect(before.getTime() < notBefore.getTime() || !isCallable(before, w)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
