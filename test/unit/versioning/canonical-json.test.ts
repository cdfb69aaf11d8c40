import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, versionAttributes } from '#shared/versioning/version-attributes.ts';

/** The first form of canonicalJson: every content_sha256 stored so far was hashed from its output. */
function firstForm(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(firstForm).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${firstForm(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** JSON data as a parsed request holds it: an object's field may be undefined (an optional left out), an array's item never. */
const content = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, tie('item'), tie('object')),
  item: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -0, 1.5e300),
    fc.string({ unit: 'binary' }),
    fc.double(),
    fc.array(tie('item')),
    tie('object'),
  ),
  object: fc.dictionary(
    fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('1', '10', '2', '__proto__', 'a')),
    fc.oneof(tie('item'), fc.constant(undefined)),
  ),
})).value;

describe('canonicalJson', () => {
  it('writes every value exactly as its first form did, so stored content hashes still match', () => {
    fc.assert(
      fc.property(content, (value) => canonicalJson(value) === firstForm(value)),
      { numRuns: 2000 },
    );
  });

  it('hashes equal content equally whatever the order of its keys', () => {
    const a = versionAttributes('1', { title: 'T', variants: [{ price: '1.50', external_variant_id: 'v' }] });
    const b = versionAttributes('1', { variants: [{ external_variant_id: 'v', price: '1.50' }], title: 'T' });
    expect(a.content_sha256).toBe(b.content_sha256);
    expect(canonicalJson({ b: 1, a: [{ d: undefined, c: 'x' }, 2], 10: 0, 9: 0 })).toBe('{"10":0,"9":0,"a":[{"c":"x"},2],"b":1}');
  });
});
