/**
 * fast-check arbitraries from the committed OpenAPI contract's JSON Schemas (which the zod
 * schemas write): values close to valid, for the fuzz suite to mutate.
 */
import fc from 'fast-check';

type Schema = Record<string, unknown>;

export function arbitraryFor(schema: Schema, components: Record<string, Schema>, depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string') return arbitraryFor(components[schema.$ref.split('/').pop()!]!, components, depth);
  if (depth > 8) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((s) => arbitraryFor(s, components, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object':
      return objectArbitrary(schema, components, depth);
    case 'array': {
      const items = arbitraryFor((schema.items ?? {}) as Schema, components, depth + 1);
      const minLength = Number(schema.minItems ?? 0);
      const few = fc.array(items, { minLength, maxLength: Math.max(Math.min(Number(schema.maxItems ?? 3), 3), minLength) });
      // Now and then as full as the contract allows: the sizes where stores and limits meet.
      if (typeof schema.maxItems !== 'number' || schema.maxItems > 1_000) return few;
      const full = fc.array(items, { minLength: schema.maxItems, maxLength: schema.maxItems });
      return fc.oneof({ arbitrary: few, weight: 5 }, { arbitrary: full, weight: 1 });
    }
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return fc.integer({ min: Number(schema.minimum ?? -1000), max: Math.min(Number(schema.maximum ?? 1000), 1_000_000) });
    case 'number':
      return fc.double({ min: Number(schema.minimum ?? -1000), max: Number(schema.maximum ?? 1000), noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectArbitrary(schema: Schema, components: Record<string, Schema>, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) record[name] = arbitraryFor(property, components, depth + 1);
  return fc.record(record, { requiredKeys: Object.keys(record).filter((k) => required.has(k)) });
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'date-time')
    return fc.date({ min: new Date('2020-01-01'), max: new Date('2035-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  const description = String(schema.description ?? '');
  if (/ISO 4217/.test(description)) return fc.constantFrom('EUR', 'USD', 'JPY', 'BHD');
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern, 'u'), { size: 'xsmall' });
    } catch {
      // A pattern JavaScript cannot take as a unicode regex: any string of the right length.
    }
  }
  const minLength = Number(schema.minLength ?? 0);
  const short = fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(Number(schema.maxLength ?? 20), 20) });
  if (typeof schema.maxLength !== 'number' || schema.maxLength > 10_000) return short;
  return fc.oneof({ arbitrary: short, weight: 5 }, { arbitrary: longestString(schema.maxLength), weight: 1 });
}

/**
 * A string of exactly `length` characters, in ASCII or in four-byte emoji: the longest a
 * field allows, in the fewest and in the most UTF-8 bytes.
 */
export const longestString = (length: number) => fc.constantFrom('x', '🚀', 'é').map((unit) => unit.repeat(length));

/** A value made worse: the kinds of bad input a careless or hostile client sends. */
export function mutated(value: unknown): fc.Arbitrary<unknown> {
  const anyLeaf = fc.oneof(
    fc.constant(null),
    fc.integer(),
    fc.double(),
    fc.string(),
    fc.constant(''),
    fc.constant('x'.repeat(70_000)),
    fc.constant('e\u0301\u0000\ud800'),
    fc.constant('12.50'),
    fc.constant(12.5),
    fc.constant([]),
    fc.constant({}),
    fc.constant(true),
  );
  return fc.oneof(
    { arbitrary: fc.constant(value), weight: 3 },
    { arbitrary: replaceRandomLeaf(value, anyLeaf), weight: 4 },
    { arbitrary: dropRandomKey(value), weight: 2 },
    { arbitrary: fc.constant(isObject(value) ? { ...value, unexpected_field: 1 } : value), weight: 1 },
    { arbitrary: fc.constant(new Array(repeatsUpTo(value, 16 * 1024 * 1024)).fill(value)), weight: 1 },
    { arbitrary: fc.constant(nest(value, 60)), weight: 1 },
    { arbitrary: anyLeaf, weight: 1 },
  );
}

/** How often `value` repeats in an array (at most 1,500 times) before the array's JSON passes `bytes`. */
const repeatsUpTo = (value: unknown, bytes: number) => Math.max(2, Math.min(1_500, Math.floor(bytes / Buffer.byteLength(JSON.stringify(value) ?? 'null'))));

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function nest(value: unknown, levels: number): unknown {
  let out = value;
  for (let i = 0; i < levels; i++) out = [out];
  return out;
}

function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return [prefix, ...value.flatMap((v, i) => paths(v, [...prefix, i]))];
  if (isObject(value)) return [prefix, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...prefix, k]))];
  return [prefix];
}

function setAt(value: unknown, path: (string | number)[], leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? setAt(v, rest, leaf) : v));
  if (isObject(value)) return { ...value, [head!]: setAt(value[head as string], rest, leaf) };
  return value;
}

function replaceRandomLeaf(value: unknown, leaf: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const all = paths(value).filter((p) => p.length > 0);
  if (all.length === 0) return leaf;
  return fc.tuple(fc.constantFrom(...all), leaf).map(([path, l]) => setAt(value, path, l));
}

function dropRandomKey(value: unknown): fc.Arbitrary<unknown> {
  if (!isObject(value) || Object.keys(value).length === 0) return fc.constant(value);
  return fc.constantFrom(...Object.keys(value)).map((key) => {
    const { [key]: _dropped, ...rest } = value;
    return rest;
  });
}
