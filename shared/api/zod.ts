/**
 * The one zod every function bundles: `zod/mini`, with the English messages partners read in
 * `errors[].message`. Mini builds the same core schemas as classic zod (same checks, issues,
 * JSON Schema and `z.compile`), but its schemas carry no chainable methods: a function that
 * imports classic zod spent about 10 ms of its cold start loading it and building its schemas,
 * mini about a third of that (README, performance: cold start).
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

z.config(en());

/** Schema types every module names: the core ones, which classic and mini schemas both are. */
export type Schema = z.core.$ZodType;
export type RefinementContext<T = unknown> = z.core.$RefinementCtx<T>;

/**
 * `schema` annotated for the contract, as classic zod's `.meta()`: a copy carrying exactly
 * `data` (not merged with what `schema` carries), so a shared field keeps its own annotation.
 * A schema built on first use is annotated as the schema it builds (built then): the contract
 * describes the field, not the deferral. One carrying checks of its own is refused, as that
 * would drop them.
 */
export function meta<T extends Schema>(schema: z.ZodMiniLazy<T>, data: z.core.GlobalMeta): T;
export function meta<T extends z.ZodMiniType>(schema: T, data: z.core.GlobalMeta): T;
export function meta(schema: z.ZodMiniType, data: z.core.GlobalMeta): z.core.$ZodType {
  if (schema instanceof z.ZodMiniLazy && schema._zod.def.checks?.length) {
    // Annotating the built schema would drop them: check the built one instead (builtSchema(X).check(…)).
    throw new Error('meta() of a deferred schema with checks of its own: add the checks to builtSchema(…) instead');
  }
  const built = schema instanceof z.ZodMiniLazy ? (schema._zod.innerType as z.ZodMiniType) : schema;
  const annotated = built.clone();
  z.globalRegistry.add(annotated, data);
  return annotated;
}

/**
 * `build`'s schema, built the first time a parse (or the contract generator) reaches it, not when
 * its module loads. A function's bundle holds every schema of the modules it imports, and built
 * at load they cost every cold start: `archiveSalesRule`, whose request has no body, built all 93
 * sales-rule schemas (README, performance: cold start). Parses, issues and the contract are the
 * same: the lazy wrapper hands each parse to the schema it built.
 */
export const builtOnFirstUse = <T extends Schema>(build: () => T): z.ZodMiniLazy<T> => z.lazy(build);

/**
 * The schema a `builtOnFirstUse` wraps, built now if no parse has built it yet. For a schema
 * nested in another that `z.compile` compiles: it compiles a lazy as a call into the runtime
 * parser, and refuses a lazy inside a lazy, so a compiled tree holds the built schemas.
 */
export const builtSchema = <T extends Schema>(lazy: z.ZodMiniLazy<T>): T => lazy._zod.innerType;

/** An integer, as classic zod's `z.number().int()` followed by its bounds: the same checks in the same order. */
export const integer = (min?: number, max?: number, message?: string) =>
  z.number().check(z.int(message), ...(min === undefined ? [] : [z.gte(min, message)]), ...(max === undefined ? [] : [z.lte(max, message)]));

/** A string of `min` to `max` characters, as classic zod's `z.string().min(min).max(max)`. */
export const text = (min: number | undefined, max: number) => z.string().check(...(min === undefined ? [] : [z.minLength(min)]), z.maxLength(max));
