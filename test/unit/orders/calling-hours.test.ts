/**
 * A customer is called only within their market's calling days and outside its quiet hours, by
 * the customer's own clock, whatever time zone the tenant is in and however late a due call is
 * picked up: checked across zones and daylight-saving changes with an independent clock (Intl).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CallPlatform } from '#shared/calls/call-platform.ts';
import { orderProcessing } from '#shared/orders/processing.ts';
import { TenantConfigSchema } from '#shared/tenants/config.ts';
import { order, ports } from './memory-ports.ts';

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Asia/Kolkata', 'America/Sao_Paulo', 'UTC'];

/** The customer's wall clock, computed here without the scheduler's code. */
function localClock(at: Date, timeZone: string): { weekday: number; hour: number } {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: 'numeric', hourCycle: 'h23' }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return { weekday: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(get('weekday')) + 1, hour: Number(get('hour')) };
}

const quiet = (hour: number, start: number, end: number) => start !== end && (start < end ? hour >= start && hour < end : hour >= start || hour < end);

describe("calling hours by the customer's market", () => {
  it('never dials outside the market hours, whatever the tenant zone, across daylight-saving changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ZONES),
        fc.constantFrom(...ZONES),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 23 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
        // Instants around the 2026 and 2027 daylight-saving changes of both hemispheres, and any other.
        fc.oneof(
          fc.date({ min: new Date('2026-03-27T00:00:00Z'), max: new Date('2026-04-06T00:00:00Z'), noInvalidDate: true }),
          fc.date({ min: new Date('2026-10-23T00:00:00Z'), max: new Date('2026-11-03T00:00:00Z'), noInvalidDate: true }),
          fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2027-12-31T00:00:00Z'), noInvalidDate: true }),
        ),
        async (tenantZone, marketZone, start, end, days, now) => {
          const p = ports('+4915100000000');
          const config = TenantConfigSchema.parse({
            quiet_hours: { timezone: tenantZone, dont_call_hour_start: 12, dont_call_hour_end: 13 },
            markets: [
              {
                country: 'DE',
                locale_default: 'de-DE',
                calling_days: days,
                timezone: marketZone,
                quiet_hours: { dont_call_hour_start: start, dont_call_hour_end: end },
              },
            ],
          });
          p.tenantConfigOf = async () => config;
          const dialled: Date[] = [];
          const sandbox = p.callPlatforms.sandbox;
          p.callPlatforms.sandbox = {
            ...sandbox,
            startAttempt: (request, at) => {
              dialled.push(at);
              return sandbox.startAttempt(request, at);
            },
          } satisfies CallPlatform;
          // An order that has been due for a while: it is picked up at `now`, wherever that falls.
          p.orders.orders.set('acme/o-1', {
            ...order('o-1'),
            processing_state: 'scheduled',
            next_contact_at: new Date(now.getTime() - 3_600_000).toISOString(),
          });
          await orderProcessing(p).advanceOrder('acme', 'o-1', () => now);
          for (const at of dialled) {
            const clock = localClock(at, marketZone);
            expect(days).toContain(clock.weekday);
            expect(quiet(clock.hour, start, end)).toBe(false);
          }
          const left = p.orders.orders.get('acme/o-1')!;
          if (dialled.length === 0) {
            // Not callable now: it waits, scheduled, for a time the market allows, and no attempt is counted.
            expect(left).toMatchObject({ processing_state: 'scheduled', call_attempts: 0 });
            const next = new Date(left.next_contact_at!);
            expect(next.getTime()).toBeGreaterThan(now.getTime());
            const clock = localClock(next, marketZone);
            expect(days).toContain(clock.weekday);
            expect(quiet(clock.hour, start, end)).toBe(false);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("falls back to the tenant's zone and quiet hours for a market that names none", async () => {
    const p = ports('+4915100000000');
    p.tenantConfigOf = async () =>
      TenantConfigSchema.parse({
        quiet_hours: { timezone: 'America/New_York', dont_call_hour_start: 21, dont_call_hour_end: 8 },
        markets: [{ country: 'DE', locale_default: 'de-DE', calling_days: [1, 2, 3, 4, 5, 6, 7] }],
      });
    // 11:00 UTC is 06:00 in New York: quiet there, so the call waits until 08:00 New York time.
    const now = new Date('2026-11-25T11:00:00Z');
    p.orders.orders.set('acme/o-2', { ...order('o-2'), processing_state: 'scheduled', next_contact_at: now.toISOString() });
    await orderProcessing(p).advanceOrder('acme', 'o-2', () => now);
    expect(p.orders.orders.get('acme/o-2')).toMatchObject({ processing_state: 'scheduled', call_attempts: 0, next_contact_at: '2026-11-25T13:00:00.000Z' });
  });
});
