/**
 * A batch's products are checked by zod's runtime parser, then, once the instance has checked
 * PRODUCTS_BEFORE_COMPILING of them, by zod's generated parser (parseProductInput). A partner
 * must not be able to tell: for every input, valid or not, either gives the schema's own answer
 * (the same parsed product, or the same issues at the same paths with the same messages).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { builtSchema } from '#shared/api/zod.ts';
import { PRODUCTS_BEFORE_COMPILING, ProductInputSchema, parseProductInput } from '#shared/catalog/product-schemas.ts';

const fieldValue = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('', ' ', 'a/b', '/x', 'x//y', '19.99', '1.234', '-1', '1e3', 'EUR', 'JPY', 'KWD', 'xx', 'active', 'archived', 'preorder', 'v1', 'p 1'),
  fc.integer({ min: -3, max: 200 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);

const variant = fc.record(
  {
    external_variant_id: fc.constantFrom('v1', 'v2', 'v 3', ''),
    price: fc.constantFrom('19.99', '5', '0.5', '1.234', '12', 'abc', '-1.00'),
    currency: fc.constantFrom('EUR', 'JPY', 'KWD', 'usd', 'XXX1'),
    inventory: fc.integer({ min: -1, max: 5 }),
    min_quantity: fc.integer({ min: 0, max: 4 }),
    max_quantity: fc.integer({ min: 0, max: 4 }),
  },
  { requiredKeys: ['external_variant_id', 'price', 'currency'] },
);

const product = fc.record(
  {
    external_product_id: fc.constantFrom('p1', 'p-2', 'p 3', '', 'x'.repeat(300)),
    title: fc.string({ maxLength: 6 }),
    category: fc.constantFrom('food/coffee', '/bad', 'a//b', 'drinks'),
    status: fc.constantFrom('active', 'inactive', 'archived'),
    availability: fc.constantFrom('in_stock', 'preorder', 'gone'),
    source_version: fc.constantFrom('1', '2026-11-24T10:00:00Z', '', 'v.2'),
    variants: fc.array(variant, { maxLength: 3 }),
  },
  { requiredKeys: ['external_product_id', 'title', 'source_version', 'variants'] },
);

const validProduct = fc.record(
  {
    external_product_id: fc.constantFrom('p1', 'p-2', 'SKU_9'),
    title: fc.string({ minLength: 1, maxLength: 20 }),
    category: fc.constantFrom('food/coffee', 'drinks'),
    status: fc.constantFrom('active', 'inactive'),
    availability: fc.constantFrom('in_stock', 'preorder'),
    source_version: fc.constantFrom('1', '2026-11-24T10:00:00Z'),
    variants: fc.uniqueArray(
      fc.record(
        {
          external_variant_id: fc.constantFrom('v1', 'v2', 'v3'),
          price: fc.constantFrom('19.99', '5', '0.5'),
          currency: fc.constantFrom('EUR', 'USD'),
          inventory: fc.nat(5),
          min_quantity: fc.constant(1),
          max_quantity: fc.integer({ min: 1, max: 4 }),
        },
        { requiredKeys: ['external_variant_id', 'price', 'currency'] },
      ),
      { minLength: 1, maxLength: 3, selector: (v) => v.external_variant_id },
    ),
  },
  { requiredKeys: ['external_product_id', 'title', 'source_version', 'variants'] },
);

/** A product with one field (or a variant's field) replaced by anything, or an extra key. */
const mutated = fc
  .tuple(product, fc.constantFrom('external_product_id', 'title', 'category', 'status', 'availability', 'source_version', 'variants', 'extra'), fieldValue)
  .map(([p, key, value]) => ({ ...p, [key]: value }));
const mutatedVariant = fc
  .tuple(product, variant, fc.constantFrom('external_variant_id', 'price', 'currency', 'inventory', 'min_quantity', 'max_quantity', 'extra'), fieldValue)
  .map(([p, v, key, value]) => ({ ...p, variants: [...p.variants, { ...v, [key]: value }] }));

const answerOf = (result: ReturnType<typeof ProductInputSchema.safeParse>) =>
  result.success ? { data: result.data } : { issues: result.error.issues.map(({ code, path, message }) => ({ code, path, message })) };

describe('the compiled check of a batch product', () => {
  it('has a generated fast path: zod compiles the schema without refusing any part of it', () => {
    expect(() => z.compile(builtSchema(ProductInputSchema), { strict: true })).not.toThrow();
  });

  it('holds no lazy schema, which zod would compile as a call into its runtime parser', () => {
    // Schemas are built on first use (builtOnFirstUse); one nested here as the lazy itself
    // would cost every product of a batch a runtime parse of its variants.
    const lazyNodes = (schema: z.core.$ZodType, seen = new Set<unknown>()): string[] => {
      if (seen.has(schema)) return [];
      seen.add(schema);
      const def = schema._zod.def as unknown as Record<string, unknown>;
      if (def.type === 'lazy') return ['lazy'];
      const values = Object.values(def).flatMap((v) => (Array.isArray(v) ? v : v && typeof v === 'object' && !('_zod' in v) ? Object.values(v) : [v]));
      return values.flatMap((v) => (v && typeof v === 'object' && '_zod' in v ? lazyNodes(v as z.core.$ZodType, seen) : []));
    };
    expect(lazyNodes(builtSchema(ProductInputSchema))).toEqual([]);
  });

  it('property: gives the schema’s own answer for valid, mutated and arbitrary inputs, before and after the instance compiles it', () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.oneof(validProduct, product, mutated, mutatedVariant, fc.anything()), (input) => {
        const fast = parseProductInput(input);
        expect(answerOf(fast)).toEqual(answerOf(ProductInputSchema.safeParse(input)));
        if (fast.success) valid++;
      }),
      // The first runs are checked by the runtime parser, the next 3,000 by the generated one.
      { numRuns: PRODUCTS_BEFORE_COMPILING + 3000 },
    );
    // Both sides of the schema are exercised, not only refusals.
    expect(valid).toBeGreaterThan(300);
  });
});
