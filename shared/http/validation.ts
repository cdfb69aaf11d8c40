/** Turns zod issues into the problem document's `errors[]` with precise pointers. */
import type { z } from 'zod';
import { type FieldError, ValidationError } from '../errors.ts';

const escapePointer = (segment: PropertyKey) => String(segment).replace(/~/g, '~0').replace(/\//g, '~1');

export type InputLocation = 'body' | 'query' | 'path' | 'header';

export function fieldErrors(issues: readonly z.core.$ZodIssue[], location: InputLocation): FieldError[] {
  return issues.flatMap((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
    const message = issue.code === 'unrecognized_keys' ? 'is not a recognised field' : issue.message;
    return keys.map((path) => ({
      pointer: location === 'body' ? path.map((p) => `/${escapePointer(p)}`).join('') : `${location}:${path.map(String).join('.')}`,
      message,
    }));
  });
}

/** Parses `input` with `schema`, throwing a 422 ValidationError whose pointers name the fields. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, location: InputLocation): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(fieldErrors(result.error.issues, location));
  return result.data;
}
