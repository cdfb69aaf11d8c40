/**
 * Money as exact decimals: amounts are decimal strings on the wire and scaled BigInts in
 * arithmetic, never floating point. Minor units come from the ISO 4217 table.
 */
import { ISO_4217_MINOR_UNITS } from './iso4217.ts';

/** ISO 4217 minor units of a currency, or undefined for a code that is not an ISO 4217 currency. */
export function minorUnits(currency: string): number | undefined {
  return ISO_4217_MINOR_UNITS.get(currency);
}

const DECIMAL = /^(?:0|[1-9]\d{0,14})(?:\.\d+)?$/;

/**
 * Why `amount` is not a valid non-negative amount of `currency`, or undefined when it is.
 * A test and an indexOf, not a capturing exec: a catalog batch checks up to 50,000 prices.
 */
export function moneyProblem(amount: string, currency: string, digits = minorUnits(currency)): string | undefined {
  if (!DECIMAL.test(amount)) return 'must be a non-negative decimal string such as "19.99"';
  const dot = amount.indexOf('.');
  if (digits !== undefined && dot >= 0 && amount.length - dot - 1 > digits) return `has more than the ${digits} decimal places of ${currency}`;
  return undefined; // an unknown currency is reported on the currency
}

export interface Decimal {
  units: bigint;
  scale: number;
}

export function parseDecimal(value: string): Decimal {
  const match = /^(-)?(\d+)(?:\.(\d+))?$/.exec(value);
  if (!match) throw new RangeError(`not a decimal string: ${value}`);
  const fraction = match[3] ?? '';
  const units = BigInt(match[2]! + fraction);
  return { units: match[1] ? -units : units, scale: fraction.length };
}

const rescale = (d: Decimal, scale: number): bigint => d.units * 10n ** BigInt(scale - d.scale);

export function addDecimals(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { units: rescale(a, scale) + rescale(b, scale), scale };
}

export function multiplyDecimal(a: Decimal, factor: bigint): Decimal {
  return { units: a.units * factor, scale: a.scale };
}

export function compareDecimals(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const scale = Math.max(a.scale, b.scale);
  const x = rescale(a, scale);
  const y = rescale(b, scale);
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Formats with exactly `scale` decimal places (a currency's minor units for totals). */
export function formatDecimal(d: Decimal, scale = d.scale): string {
  if (scale < d.scale) throw new RangeError('formatting would lose digits');
  const units = rescale(d, scale);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
}
