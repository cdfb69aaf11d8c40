/** Field schemas shared by every resource: ids, versions, times, currencies and amounts. */
import * as z from 'zod';
import { minorUnits, moneyProblem } from '../money/decimal.ts';

/** Partner ids appear in URL paths, so they are restricted to characters that need no escaping. */
export const EXTERNAL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:~@-]{0,127}$/;
export const EXTERNAL_ID_MESSAGE = 'must be 1 to 128 characters: letters, digits and . _ : ~ @ -, starting with a letter or digit';
export const ExternalId = z.string().regex(EXTERNAL_ID_PATTERN, EXTERNAL_ID_MESSAGE);

export const SourceVersion = z.string().min(1).max(128).meta({
  description: 'Monotonic version of the partner record: digit strings compare as integers, RFC 3339 timestamps as instants, anything else by code points.',
});

export const Rfc3339 = z.iso.datetime({ offset: true, message: 'must be an RFC 3339 date-time with a time zone, such as 2026-11-22T10:00:00Z' });

export const CurrencyCode = z
  .string()
  .refine((c) => minorUnits(c) !== undefined, 'must be an ISO 4217 currency code such as EUR')
  .meta({ description: 'ISO 4217 code', example: 'EUR' });

export const MONEY_PATTERN = /^(0|[1-9]\d{0,14})(\.\d+)?$/;
export const MONEY_MESSAGE = 'must be a non-negative decimal string such as "19.99"';
export const MoneyAmount = z
  .string()
  .regex(MONEY_PATTERN, MONEY_MESSAGE)
  .meta({ description: "Decimal string with at most the currency's ISO 4217 minor units", example: '19.99' });

/** Checks `amount` against `currency`'s minor units; to be used in an object's superRefine. */
export function checkMoney(ctx: z.RefinementCtx, amount: string, currency: string, path: PropertyKey[]): void {
  const problem = moneyProblem(amount, currency);
  if (problem) ctx.addIssue({ code: 'custom', path, message: problem });
}
