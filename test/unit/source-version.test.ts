import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareSourceVersions, sortableVersion } from '#shared/versioning/source-version.ts';

describe('compareSourceVersions (contract-decisions section 3)', () => {
  it('compares digit strings as integers, not as text', () => {
    expect(compareSourceVersions('10', '9')).toBe(1);
    expect(compareSourceVersions('007', '7')).toBe(0);
    expect(compareSourceVersions('1234567890123456789012345678901234567890', '1234567890123456789012345678901234567889')).toBe(1);
  });

  it('compares RFC 3339 timestamps as instants, across offsets and beyond milliseconds', () => {
    expect(compareSourceVersions('2026-11-22T10:00:00+02:00', '2026-11-22T09:00:00Z')).toBe(-1);
    expect(compareSourceVersions('2026-11-22T08:00:00Z', '2026-11-22T10:00:00+02:00')).toBe(0);
    expect(compareSourceVersions('2026-11-22T08:00:00.0000001Z', '2026-11-22T08:00:00Z')).toBe(1);
  });

  it('compares fractions of a second of any precision as decimals (fast-check once found .7 ordered below .0800000000)', () => {
    expect(compareSourceVersions('1970-01-01T00:00:00.7Z', '1970-01-01T00:00:00.0800000000Z')).toBe(1);
    expect(compareSourceVersions('2026-11-22T08:00:00.5Z', '2026-11-22T08:00:00.500000000000Z')).toBe(0);
    const fraction = fc.stringMatching(/^\d{1,15}$/);
    fc.assert(
      fc.property(fraction, fraction, (f, g) => {
        const asDecimal = (digits: string) => BigInt(digits.padEnd(15, '0'));
        const expected = Math.sign(Number(asDecimal(f) - asDecimal(g)));
        expect(compareSourceVersions(`2026-11-22T08:00:00.${f}Z`, `2026-11-22T08:00:00.${g}Z`)).toBe(expected);
        expect(
          Math.sign(
            Buffer.compare(Buffer.from(sortableVersion(`2026-11-22T08:00:00.${f}Z`).key), Buffer.from(sortableVersion(`2026-11-22T08:00:00.${g}Z`).key)),
          ),
        ).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('falls back to Unicode code points for anything else, including mixed kinds', () => {
    expect(compareSourceVersions('v2', 'v10')).toBe(1);
    expect(compareSourceVersions('12', 'v1')).toBe(-1);
    expect(compareSourceVersions('\u{1F600}', '\uFFFF')).toBe(1);
  });

  it('is a consistent order: antisymmetric and reflexive for any strings', () => {
    const version = fc.oneof(
      fc.bigInt({ min: 0n, max: 10n ** 40n - 1n }).map(String),
      fc.date({ noInvalidDate: true, min: new Date(0) }).map((d) => d.toISOString()),
      fc.string(),
    );
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(compareSourceVersions(a, a)).toBe(0);
        expect(compareSourceVersions(a, b)).toBe(-compareSourceVersions(b, a) || 0);
      }),
    );
  });
});

describe('sortableVersion (the key the conditional write compares)', () => {
  const version = fc.oneof(
    fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 38n - 1n }), fc.nat(2)).map(([n, zeros]) => '0'.repeat(zeros) + n.toString()),
    fc
      .tuple(
        fc.date({ noInvalidDate: true, min: new Date('0001-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z') }),
        fc.stringMatching(/^(\.\d{1,12})?$/),
        fc.constantFrom('Z', '+02:00', '-05:30', '+00:00'),
      )
      .map(([d, fraction, zone]) => d.toISOString().slice(0, 19) + fraction + zone),
    fc.string(),
  );
  const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

  it('orders keys of the same kind by UTF-8 bytes exactly as compareSourceVersions orders the versions', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        const x = sortableVersion(a);
        const y = sortableVersion(b);
        fc.pre(x.kind === y.kind);
        expect(Math.sign(byBytes(x.key, y.key))).toBe(compareSourceVersions(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('orders versions of different kinds like their raw strings, as the contract falls back to code points', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        fc.pre(sortableVersion(a).kind !== sortableVersion(b).kind);
        expect(Math.sign(byBytes(a, b))).toBe(compareSourceVersions(a, b));
      }),
    );
  });
});
