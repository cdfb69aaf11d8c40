/** Products and variants (spec 2.1, 4.2): the request and response shapes, in one place. */
import * as z from 'zod/mini';
import { answerSchema } from '../api/answer-schema.ts';
import {
  BooleanQuery,
  EXTERNAL_ID_JSON_PATTERN,
  EXTERNAL_ID_MAX_CHARACTERS,
  EXTERNAL_ID_MESSAGE,
  ExternalId,
  isExternalId,
  MONEY_PATTERN,
  SourceVersion,
  UtcTime,
} from '../api/fields.ts';
import { MAX_PRODUCTS_PER_BATCH, MAX_VARIANTS_PER_PRODUCT } from '../api/limits.ts';
import { builtOnFirstUse, builtSchema, integer, meta, type RefinementContext, text } from '../api/zod.ts';
import { minorUnits, moneyProblem } from '../money/decimal.ts';

export const PARTNER_PRODUCT_STATUSES = ['active', 'inactive'] as const;
export const PRODUCT_STATUSES = [...PARTNER_PRODUCT_STATUSES, 'archived'] as const;
export const AVAILABILITIES = ['in_stock', 'out_of_stock', 'preorder', 'backorder', 'discontinued'] as const;

/**
 * A variant's fields are checked by its product in one pass (see `variantIssues`): a batch
 * holds up to 50,000 variants, and one pass per product is several times faster than a
 * refinement per field. The documented patterns are the ones that pass checks. Like every
 * schema of this module, built the first time a parse reaches it: the catalog's readers never
 * parse a product (README, performance: cold start).
 */
export const VariantSchema = builtOnFirstUse(() =>
  meta(
    z.strictObject({
      external_variant_id: meta(z.string(), {
        minLength: 1,
        maxLength: EXTERNAL_ID_MAX_CHARACTERS,
        pattern: EXTERNAL_ID_JSON_PATTERN,
        description: `Unique within the product; ${EXTERNAL_ID_MESSAGE}`,
      }),
      price: meta(z.string(), {
        pattern: MONEY_PATTERN.source,
        description: "Decimal string with at most the currency's ISO 4217 minor units",
        example: '19.99',
      }),
      currency: meta(z.string(), { description: 'ISO 4217 code', example: 'EUR' }),
      inventory: z.optional(integer(0)),
      min_quantity: z.optional(integer(1)),
      max_quantity: meta(z.optional(integer(1)), { description: 'Not less than min_quantity' }),
    }),
    { id: 'Variant' },
  ),
);
type Variant = z.output<typeof VariantSchema>;

function variantIssues(variants: readonly Variant[], ctx: RefinementContext): void {
  const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path: ['variants', ...path], message });
  // A plain loop and no Set for a single variant: this runs for every product of every batch.
  const seen = variants.length > 1 ? new Set<string>() : undefined;
  for (let i = 0; i < variants.length; i++) {
    const v = variants[i]!;
    if (!isExternalId(v.external_variant_id)) issue([i, 'external_variant_id'], EXTERNAL_ID_MESSAGE);
    else if (seen?.has(v.external_variant_id)) issue([i, 'external_variant_id'], 'appears twice in this product');
    seen?.add(v.external_variant_id);
    const digits = minorUnits(v.currency);
    if (digits === undefined) issue([i, 'currency'], 'must be an ISO 4217 currency code such as EUR');
    const money = moneyProblem(v.price, v.currency, digits);
    if (money) issue([i, 'price'], money);
    if (v.min_quantity !== undefined && v.max_quantity !== undefined && v.min_quantity > v.max_quantity) {
      issue([i, 'max_quantity'], 'must not be less than min_quantity');
    }
  }
}

export const ProductInputSchema = builtOnFirstUse(() =>
  meta(
    z
      .strictObject({
        external_product_id: builtSchema(ExternalId),
        title: meta(text(1, 500), {
          description:
            'Required (a decision beyond the spec, which shows title only in its upsert example): the title is what a customer hears when their order is read back to them.',
        }),
        category: z.optional(
          z.string().check(z.regex(/^[^/\s][^/]*(\/[^/]+)*$/, 'must be a slash-separated path such as "beverages/coffee"'), z.maxLength(500)),
        ),
        status: meta(z._default(z.enum(PARTNER_PRODUCT_STATUSES), 'active'), { description: '`archived` is set only by DELETE.' }),
        availability: z._default(z.enum(AVAILABILITIES), 'in_stock'),
        source_version: builtSchema(SourceVersion),
        variants: z.array(builtSchema(VariantSchema)).check(z.minLength(1), z.maxLength(MAX_VARIANTS_PER_PRODUCT)),
      })
      .check(z.superRefine((p, ctx) => variantIssues(p.variants, ctx))),
    { id: 'ProductInput' },
  ),
);
export type ProductInput = z.output<typeof ProductInputSchema>;

export const ProductBatchSchema = builtOnFirstUse(() =>
  meta(z.strictObject({ products: z.array(builtSchema(ProductInputSchema)).check(z.maxLength(MAX_PRODUCTS_PER_BATCH)) }), {
    id: 'ProductBatch',
  }),
);

/**
 * What the pipeline checks before the batch is split: each product is validated on its own,
 * so one bad product never fails the batch.
 */
export const ProductBatchEnvelope = builtOnFirstUse(() => z.strictObject({ products: z.array(z.unknown()) }));

/**
 * Products an instance checks with zod's runtime parser before it builds the generated one.
 * Generating and compiling it (`z.compile`) costs a first batch about 2 ms, which is what the
 * runtime parser's extra 2 µs a product adds up to over about a thousand products: a new
 * instance's first small batches are not held up by it, and its steady flow runs on it.
 */
export const PRODUCTS_BEFORE_COMPILING = 1_000;

let compiledProductInput: (typeof ProductInputSchema)['_zod']['innerType'] | undefined;
let checkedAtRuntime = 0;

/**
 * One product of a batch checked against ProductInputSchema: by the runtime parser for the
 * instance's first PRODUCTS_BEFORE_COMPILING products, then by zod's generated parser, with which
 * a 500-product batch validates in about half the runtime parser's time. An input the fast path
 * refuses goes to the runtime parser, so the answer and the issues are the schema's own
 * (test/unit/catalog/compiled-product-input.test.ts).
 */
export function parseProductInput(raw: unknown) {
  if (!compiledProductInput && checkedAtRuntime++ < PRODUCTS_BEFORE_COMPILING) return ProductInputSchema.safeParse(raw);
  compiledProductInput ??= z.compile(builtSchema(ProductInputSchema));
  return compiledProductInput.safeParse(raw);
}

export const ItemErrorSchema = answerSchema(() =>
  meta(z.object({ code: z.string(), pointer: z.string(), message: z.string() }), {
    id: 'ItemError',
    description: 'Why one item of a batch was rejected; pointer is into the request body.',
  }),
);

export const BatchResultSchema = answerSchema(() =>
  meta(
    z.object({
      accepted: integer(),
      rejected: integer(),
      results: z.array(
        z.object({
          index: meta(integer(), { description: 'Position in `products[]`' }),
          external_product_id: z.nullable(z.string()),
          outcome: z.enum(['upserted', 'unchanged', 'rejected']),
          source_version: z.optional(z.string()),
          errors: meta(z.optional(z.array(ItemErrorSchema)), { description: 'The first 10 reasons' }),
          errors_total: meta(z.optional(integer()), { description: 'How many reasons there were, when more than `errors` lists' }),
        }),
      ),
    }),
    { id: 'ProductBatchResult' },
  ),
);

/** What a product and its summary both begin with (built inside each answer's builder, on first use). */
const productHeadline = () => ({
  external_product_id: z.string(),
  title: z.string(),
  category: z.nullable(z.string()),
  status: z.enum(PRODUCT_STATUSES),
  availability: z.enum(AVAILABILITIES),
});

const timestamps = {
  created_at: UtcTime,
  updated_at: UtcTime,
};

export const ProductSchema = answerSchema(() =>
  meta(
    z.object({
      ...productHeadline(),
      source_version: z.string(),
      variants: z.array(builtSchema(VariantSchema)),
      archived_at: z.nullable(UtcTime),
      ...timestamps,
    }),
    { id: 'Product' },
  ),
);
export type Product = z.output<typeof ProductSchema>;

export const ProductSummarySchema = answerSchema(() =>
  meta(
    z.object({
      ...productHeadline(),
      variant_count: integer(),
      source_version: z.string(),
      updated_at: UtcTime,
    }),
    { id: 'ProductSummary' },
  ),
);

/** The product list's own filters (with `limit` and `cursor`: `listQuery`). */
export const productListFilters = () =>
  z.strictObject({
    q: meta(z.optional(text(1, 200)), { description: 'Case-insensitive substring of the title or the external id' }),
    category: meta(z.optional(text(1, 500)), { description: 'Category path prefix, whole segments: `food` matches `food/fruit`, not `foodstuff`' }),
    status: z.optional(z.enum(PRODUCT_STATUSES)),
    availability: z.optional(z.enum(AVAILABILITIES)),
    include_archived: meta(z._default(BooleanQuery, false), { description: 'Archived products are left out unless true (or status=archived)' }),
  });
