/**
 * Field schemas shared by every resource: ids, versions, times, currencies and amounts. Each is
 * built the first time a parse (or the contract) reaches it, like the schemas that use them: a
 * function builds the fields its requests have, and one refused at authentication builds none.
 * A schema that `z.compile` compiles nests the built field (`builtSchema(ExternalId)`).
 */
import * as z from 'zod/mini';
import { minorUnits, moneyProblem } from '../money/decimal.ts';
import { builtOnFirstUse, meta, type RefinementContext } from './zod.ts';

/**
 * Partner ids are the store's own (Shopify's `gid://shopify/Product/123`, `cust/42 ü`): any 1
 * to 255 Unicode characters without control characters, at most 255 bytes in UTF-8. They are
 * percent-encoded in paths (the signing rules already say so) and escaped in table keys
 * (`storage/keys.ts`). The byte bound keeps every key within DynamoDB's: an id escaped (at most
 * three times its bytes) with its key's prefix stays under the 1,024-byte sort key.
 */
export const EXTERNAL_ID_MAX_CHARACTERS = 255;
export const EXTERNAL_ID_MAX_BYTES = 255;
export const EXTERNAL_ID_MESSAGE = `must be 1 to ${EXTERNAL_ID_MAX_CHARACTERS} characters and at most ${EXTERNAL_ID_MAX_BYTES} bytes in UTF-8, without control characters, and not "." or ".."`;
/** For the contract: what `isExternalId` checks, as JSON Schema understands it (lengths count code points). */
export const EXTERNAL_ID_JSON_PATTERN = '^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F-\\u009F]+$';
// Unicode's control characters (C0, DEL and C1): the general category Cc.
const CONTROL_CHARACTER = /\p{Cc}/u;

export function isExternalId(value: string): boolean {
  if (value.length === 0 || value.length > 2 * EXTERNAL_ID_MAX_CHARACTERS || CONTROL_CHARACTER.test(value) || !value.isWellFormed()) return false;
  // URLs resolve a `.` or `..` segment away (even percent-encoded), so such an id could never be read back.
  if (value === '.' || value === '..') return false;
  if (Buffer.byteLength(value, 'utf8') > EXTERNAL_ID_MAX_BYTES) return false;
  // Every character counts once, emoji included (a string's length counts UTF-16 units).
  let characters = 0;
  for (const _ of value) if (++characters > EXTERNAL_ID_MAX_CHARACTERS) return false;
  return true;
}

export const ExternalId = builtOnFirstUse(() =>
  meta(z.string().check(z.refine(isExternalId, EXTERNAL_ID_MESSAGE)), {
    minLength: 1,
    maxLength: EXTERNAL_ID_MAX_CHARACTERS,
    pattern: EXTERNAL_ID_JSON_PATTERN,
    description: `Partner id: ${EXTERNAL_ID_MESSAGE}`,
  }),
);

export const SourceVersion = builtOnFirstUse(() =>
  meta(z.string().check(z.minLength(1), z.maxLength(128)), {
    description: 'Monotonic version of the partner record: digit strings compare as integers, RFC 3339 timestamps as instants, anything else by code points.',
  }),
);

/** The latest instant the service stores: later ones no longer have a four-digit year in UTC. */
export const LATEST_INSTANT = '9999-12-31T23:59:59.999Z';
/**
 * A partner's time, in any offset, answered and stored as the service's one canonical form:
 * UTC with `Z` and milliseconds (`toISOString`), so its string order is its time order.
 */
export const Rfc3339 = builtOnFirstUse(() =>
  z.pipe(
    z.iso
      .datetime({ offset: true, message: 'must be an RFC 3339 date-time with a time zone, such as 2026-11-22T10:00:00Z' })
      .check(z.refine((value) => Date.parse(value) <= Date.parse(LATEST_INSTANT), `must be no later than ${LATEST_INSTANT} in UTC`)),
    z.transform((value: string) => new Date(value).toISOString()),
  ),
);

export const UTC_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z$';
/** Every time the service answers: RFC 3339 in UTC, always with `Z`. */
export const UtcTime = builtOnFirstUse(() => meta(z.string(), { format: 'date-time', pattern: UTC_TIME_PATTERN, description: 'RFC 3339, UTC (always `Z`)' }));

export const CurrencyCode = builtOnFirstUse(() =>
  meta(z.string().check(z.refine((c) => minorUnits(c) !== undefined, 'must be an ISO 4217 currency code such as EUR')), {
    description: 'ISO 4217 code',
    example: 'EUR',
  }),
);

export const MONEY_PATTERN = /^(0|[1-9]\d{0,14})(\.\d+)?$/;
export const MONEY_MESSAGE = 'must be a non-negative decimal string such as "19.99"';
export const MoneyAmount = builtOnFirstUse(() =>
  meta(z.string().check(z.regex(MONEY_PATTERN, MONEY_MESSAGE)), {
    description: "Decimal string with at most the currency's ISO 4217 minor units",
    example: '19.99',
  }),
);

/** A query parameter that is `true` or `false`. */
export const BooleanQuery = builtOnFirstUse(() =>
  z.pipe(
    z.enum(['true', 'false']),
    z.transform((value: 'true' | 'false') => value === 'true'),
  ),
);

/** Checks `amount` against `currency`'s minor units; to be used in an object's superRefine. */
export function checkMoney(ctx: RefinementContext, amount: string, currency: string, path: PropertyKey[]): void {
  const problem = moneyProblem(amount, currency);
  if (problem) ctx.addIssue({ code: 'custom', path, message: problem });
}
