/**
 * When to call: the earliest instant at or after `earliest` that falls on one of the
 * market's calling days and outside the quiet hours, both in the configured IANA time zone
 * (the platform's Intl data, so daylight-saving changes are handled by the zone rules).
 */
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

/** The wall clock of an instant in a zone, from one cached formatter per zone. */
function wallClock(at: Date | number, timezone: string): Record<string, string> {
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
  return Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
}

export function localParts(at: Date, timezone: string): { weekday: number; hour: number; minute: number; second: number } {
  const parts = wallClock(at, timezone);
  return { weekday: WEEKDAYS[parts.weekday!]!, hour: Number(parts.hour), minute: Number(parts.minute), second: Number(parts.second) };
}

export function isQuietHour(hour: number, w: CallingWindow): boolean {
  if (w.quietStartHour === w.quietEndHour) return false;
  return w.quietStartHour < w.quietEndHour ? hour >= w.quietStartHour && hour < w.quietEndHour : hour >= w.quietStartHour || hour < w.quietEndHour;
}

export function isCallable(at: Date, w: CallingWindow): boolean {
  const local = localParts(at, w.timezone);
  return w.callingDays.includes(local.weekday) && !isQuietHour(local.hour, w);
}

/**
 * Steps from local hour to local hour (at most 8 days of them): a callable hour starts a window.
 * A step that crosses an offset change stops at the change, since zones such as Chatham
 * (UTC+12:45) and Lord Howe (30-minute DST) move their clocks away from a whole local hour.
 */
export function nextContactAt(earliest: Date, w: CallingWindow): Date {
  if (w.callingDays.length === 0) throw new RangeError('a market needs at least one calling day');
  let at = new Date(earliest.getTime());
  for (let step = 0; step < 2 * (8 * 24 + 2); step++) {
    if (isCallable(at, w)) return at;
    const local = localParts(at, w.timezone);
    const nextHour = at.getTime() - (at.getTime() % 1000) + ((60 - local.minute) * 60 - local.second) * 1000;
    at = new Date(offsetChangeWithin(at.getTime(), nextHour, w.timezone) ?? nextHour);
  }
  throw new RangeError('no callable hour within 8 days');
}

const MINUTE = 60_000;

/** The zone's offset from UTC at an instant, in minutes. */
function offsetMinutes(at: number, timezone: string): number {
  const p = wallClock(at, timezone);
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return Math.round((wall - (at - (at % 1000))) / MINUTE);
}

/** The first whole minute in (from, to] at which the offset differs from the one at `from`, if any (zones change at most once an hour). */
function offsetChangeWithin(from: number, to: number, timezone: string): number | undefined {
  const before = offsetMinutes(from, timezone);
  if (offsetMinutes(to, timezone) === before) return undefined;
  let lo = from - (from % MINUTE);
  let hi = to;
  while (hi - lo > MINUTE) {
    const mid = lo + Math.floor((hi - lo) / MINUTE / 2) * MINUTE;
    if (offsetMinutes(mid, timezone) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}
