import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareSourceVersions } from '../../shared/versioning/source-version.ts';

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

  it('falls back to Unicode code points for anything else, including mixed kinds', () => {
    expect(compareSourceVersions('v2', 'v10')).toBe(1);
    expect(compareSourceVersions('12', 'v1')).toBe(-1);
    expect(compareSourceVersions('\u{1F600}', '\uFFFF')).toBe(1);
  });

  it('is a consistent order: antisymmetric and reflexive for any strings', () => {
    const version = fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 40n - 1n }).map(String), fc.date({ noInvalidDate: true, min: new Date(0) }).map((d) => d.toISOString()), fc.string());
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(compareSourceVersions(a, a)).toBe(0);
        expect(compareSourceVersions(a, b)).toBe(-compareSourceVersions(b, a) || 0);
      }),
    );
  });
});
