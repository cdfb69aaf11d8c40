import { describe, expect, it } from 'vitest';
import { minorUnits, moneyProblem } from '#shared/money/decimal.ts';
import { ISO_4217_MINOR_UNITS } from '#shared/money/iso4217.ts';

describe('amounts against ISO 4217 minor units', () => {
  it.each([
    ['19.99', 'EUR'],
    ['1.50', 'EUR'],
    ['0', 'EUR'],
    ['120', 'JPY'],
    ['1.125', 'BHD'],
    ['999999999999999.99', 'USD'],
  ])('accepts %s %s', (amount, currency) => {
    expect(moneyProblem(amount, currency)).toBeUndefined();
  });

  it.each([
    ['19.999', 'EUR', 'has more than the 2 decimal places of EUR'],
    ['120.5', 'JPY', 'has more than the 0 decimal places of JPY'],
    ['1.1255', 'BHD', 'has more than the 3 decimal places of BHD'],
  ])('refuses %s %s: too many decimals', (amount, currency, message) => {
    expect(moneyProblem(amount, currency)).toBe(message);
  });

  it.each(['01.5', '1.', '.5', '-1', '1e3', '1,50', ' 1', '1234567890123456', ''])('refuses %j as a decimal string', (amount) => {
    expect(moneyProblem(amount, 'EUR')).toBe('must be a non-negative decimal string such as "19.99"');
  });

  it('leaves an unknown currency to the currency check', () => {
    expect(minorUnits('XYZ')).toBeUndefined();
    expect(moneyProblem('1.23456', 'XYZ')).toBeUndefined();
  });
});

describe('the ISO 4217 table', () => {
  it('holds every code of the currency-codes data set with its minor units, and no other', async () => {
    const { default: currencyCodes } = await import('currency-codes');
    const expected = new Map(currencyCodes.data.map((c) => [c.code, c.digits]));
    expect(new Map(ISO_4217_MINOR_UNITS)).toEqual(expected);
    expect(new Map([...expected.keys()].map((code) => [code, minorUnits(code)]))).toEqual(expected);
    expect(['XXX1', 'usd', 'EURO', ''].map((code) => minorUnits(code))).toEqual([undefined, undefined, undefined, undefined]);
  });
});
