/**
 * When to call: the earliest instant at or after `earliest` that falls on one of the
 * market's calling days and outside the quiet hours, both in the configured IANA time zone
 * (the platform's Intl data, so daylight-saving changes are handled by the zone rules).
 */
import type { TenantConfig } from '../tenants/tenant-config.ts';
import { type CustomerContact, marketOf } from './destination.ts';

export interface CallingWindow {
  timezone: string;
  /** ISO weekdays, 1 = Monday. */
  callingDays: readonly number[];
  /** Local hours [start, end) in which no call is made; equal values mean no quiet hours. */
  quietStartHour: number;
  quietEndHour: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };
const MINUTE = 60_000;

interface WallClock {
  weekday: number;
  hour: number;
  minute: number;
  second: number;
  /** The zone's offset from UTC at that instant. */
  offsetMinutes: number;
}

/** The wall clock of an instant in a zone (one formatting, one cached formatter per zone). */
function wallClock(at: number, timezone: string): WallClock {
  let format = formatters.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      weekday: 'short',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
    });
    formatters.set(timezone, format);
  }
  const p = Object.fromEntries(format.formatToParts(at).map((part) => [part.type, part.value]));
  const [hour, minute, second] = [Number(p.hour), Number(p.minute), Number(p.second)];
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), hour, minute, second);
  return { weekday: WEEKDAYS[p.weekday!]!, hour, minute, second, offsetMinutes: Math.round((wall - (at - (at % 1000))) / MINUTE) };
}

export function localParts(at: Date, timezone: string): { weekday: number; hour: number; minute: number; second: number } {
  const { weekday, hour, minute, second } = wallClock(at.getTime(), timezone);
  return { weekday, hour, minute, second };
}

export function isQuietHour(hour: number, w: CallingWindow): boolean {
  if (w.quietStartHour === w.quietEndHour) return false;
  return w.quietStartHour < w.quietEndHour ? hour >= w.quietStartHour && hour < w.quietEndHour : hour >= w.quietStartHour || hour < w.quietEndHour;
}

const callableAt = (clock: Pick<WallClock, 'weekday' | 'hour'>, w: CallingWindow) => w.callingDays.includes(clock.weekday) && !isQuietHour(clock.hour, w);

export function isCallable(at: Date, w: CallingWindow): boolean {
  return callableAt(localParts(at, w.timezone), w);
}

/**
 * Steps from local hour to local hour (at most 8 days of them): a callable hour starts a window.
 * A step that crosses an offset change stops at the change, since zones such as Chatham
 * (UTC+12:45) and Lord Howe (30-minute DST) move their clocks away from a whole local hour.
 * Each step formats one instant: the next hour's clock, which is the next step's unless a change lies between.
 */
export function nextContactAt(earliest: Date, w: CallingWindow): Date {
  if (w.callingDays.length === 0) throw new RangeError('a market needs at least one calling day');
  let at = earliest.getTime();
  let clock = wallClock(at, w.timezone);
  for (let step = 0; step < 2 * (8 * 24 + 2); step++) {
    if (callableAt(clock, w)) return new Date(at);
    const nextHour = at - (at % 1000) + ((60 - clock.minute) * 60 - clock.second) * 1000;
    const then = wallClock(nextHour, w.timezone);
    if (then.offsetMinutes === clock.offsetMinutes) [at, clock] = [nextHour, then];
    else {
      at = offsetChangeWithin(at, nextHour, clock.offsetMinutes, w.timezone);
      clock = wallClock(at, w.timezone);
    }
  }
  throw new RangeError('no callable hour within 8 days');
}

/** The first whole minute in (from, to] at which the offset is no longer `before` (zones change at most once an hour). */
function offsetChangeWithin(from: number, to: number, before: number, timezone: string): number {
  let lo = from - (from % MINUTE);
  let hi = to;
  while (hi - lo > MINUTE) {
    const mid = lo + Math.floor((hi - lo) / MINUTE / 2) * MINUTE;
    if (wallClock(mid, timezone).offsetMinutes === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** When the customer's market may be called; undefined where the tenant has no market for them. */
export function callingWindow(config: TenantConfig, customer: CustomerContact | undefined): CallingWindow | undefined {
  const market = marketOf(config, customer);
  if (!market) return undefined;
  // The customer's market's own hours where it names them: a call is lawful by the customer's clock, not the tenant's.
  const quiet = market.quiet_hours ?? config.quiet_hours;
  return {
    timezone: market.timezone ?? config.quiet_hours.timezone,
    callingDays: market.calling_days,
    quietStartHour: quiet.dont_call_hour_start,
    quietEndHour: quiet.dont_call_hour_end,
  };
}
