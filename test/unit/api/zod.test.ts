/**
 * The schema helpers every module builds with (shared/api/zod.ts): a schema built on first use
 * parses as the schema it builds, and annotating one neither loses a check nor changes what
 * the contract says of it (one that would lose a check is refused).
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { builtOnFirstUse, builtSchema, meta } from '#shared/api/zod.ts';

const shortText = () => z.string().check(z.maxLength(3));

describe('schemas built on first use', () => {
  it('are not built until a parse reaches them, and then once', () => {
    let builds = 0;
    const deferred = builtOnFirstUse(() => {
      builds++;
      return shortText();
    });
    expect(builds).toBe(0);
    expect(z.safeParse(deferred, 'abcd').success).toBe(false);
    expect(z.safeParse(deferred, 'abc').success).toBe(true);
    expect(builtSchema(deferred)).toBe(builtSchema(deferred));
    expect(builds).toBe(1);
  });

  it('are annotated as the schema they build: the same JSON Schema as annotating the built one', () => {
    const annotated = meta(builtOnFirstUse(shortText), { description: 'three at most' });
    // Compared as text: the published contract is compared byte for byte, key order included.
    expect(JSON.stringify(z.toJSONSchema(annotated))).toBe(JSON.stringify(z.toJSONSchema(meta(shortText(), { description: 'three at most' }))));
  });

  it('refuse an annotation that would drop a check added to the deferral itself', () => {
    const checked = builtOnFirstUse(shortText).check(z.refine((value) => value !== 'no', 'must not be "no"'));
    expect(() => meta(checked, { description: 'not "no"' })).toThrow(/checks of its own/);
    // The way to write it: the check on the built schema, which the annotation keeps.
    const annotated = meta(builtSchema(builtOnFirstUse(shortText)).check(z.refine((value) => value !== 'no', 'must not be "no"')), { description: 'not "no"' });
    expect(z.safeParse(annotated, 'no').success).toBe(false);
    expect(z.safeParse(annotated, 'abcd').success).toBe(false);
    expect(z.safeParse(annotated, 'yes').success).toBe(true);
  });
});
