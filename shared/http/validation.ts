/** Turns zod issues into the problem document's `errors[]` with precise pointers. */
import * as z from 'zod/mini';
// For its side effect too: it sets the English messages every issue below is written with.
import '../api/zod.ts';
import type { Schema } from '../api/zod.ts';
import { type FieldError, ValidationError } from '../errors.ts';

const escapePointer = (segment: PropertyKey) => String(segment).replace(/~/g, '~0').replace(/\//g, '~1');

export type InputLocation = 'body' | 'query' | 'path' | 'header';

/** A problem lists at most this many field errors, and how many there were in all. */
export const MAX_FIELD_ERRORS = 100;

/** At most `max` field errors (an unknown-fields issue names each field, so the cap applies after expansion). */
export function fieldErrors(issues: readonly z.core.$ZodIssue[], location: InputLocation, max = MAX_FIELD_ERRORS): FieldError[] {
  return issues
    .slice(0, max)
    .flatMap((issue) => {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
      const message = issue.code === 'unrecognized_keys' ? 'is not a recognised field' : issue.message;
      return keys.map((path) => ({
        pointer: location === 'body' ? path.map((p) => `/${escapePointer(p)}`).join('') : `${location}:${path.map(String).join('.')}`,
        message,
      }));
    })
    .slice(0, max);
}

/** Parses `input` with `schema`, throwing a 422 ValidationError whose pointers name the fields. */
export function parseOrThrow<S extends Schema>(schema: S, input: unknown, location: InputLocation): z.output<S> {
  const result = z.safeParse(schema, input);
  if (!result.success) {
    const issues = result.error.issues;
    throw new ValidationError(fieldErrors(issues, location), undefined, issues.length);
  }
  return result.data;
}
