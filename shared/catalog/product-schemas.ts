/** Products and variants (spec 2.1, 4.2): the request and response shapes, in one place. */
import * as z from 'zod';
import { answerSchema } from '../api/answer-schema.ts';
import {
  EXTERNAL_ID_JSON_PATTERN,
  EXTERNAL_ID_MAX_CHARACTERS,
  EXTERNAL_ID_MESSAGE,
  ExternalId,
  isExternalId,
  MONEY_PATTERN,
  SourceVersion,
  UtcTime,
} from '../api/fields.ts';
import { minorUnits, moneyProblem } from '../money/decimal.ts';
import { MAX_PRODUCTS_PER_BATCH, MAX_VARIANTS_PER_PRODUCT } from '../api/limits.ts';

export const PARTNER_PRODUCT_STATUSES = ['active', 'inactive'] as const;
export const PRODUCT_STATUSES = [...PARTNER_PRODUCT_STATUSES, 'archived'] as const;
export const AVAILABILITIES = ['in_stock', 'out_of_stock', 'preorder', 'backorder', 'discontinued'] as const;

/**
 * A variant's fields are checked by its product in one pass (see `variantIssues`): a batch
 * holds up to 50,000 variants, and one pass per product is several times faster than a
 * refinement per field. The documented patterns are the ones that pass checks.
 */
export const VariantSchema = z
  .strictObject({
    external_variant_id: z.string().meta({
      minLength: 1,
      maxLength: EXTERNAL_ID_MAX_CHARACTERS,
      pattern: EXTERNAL_ID_JSON_PATTERN,
      description: `Unique within the product; ${EXTERNAL_ID_MESSAGE}`,
    }),
    price: z.string().meta({ pattern: MONEY_PATTERN.source, description: "Decimal string with at most the currency's ISO 4217 minor units", example: '19.99' }),
    currency: z.string().meta({ description: 'ISO 4217 code', example: 'EUR' }),
    inventory: z.number().int().min(0).optional(),
    min_quantity: z.number().int().min(1).optional(),
    max_quantity: z.number().int().min(1).optional().meta({ description: 'Not less than min_quantity' }),
  })
  .meta({ id: 'Variant' });
type Variant = z.output<typeof VariantSchema>;

function variantIssues(variants: readonly Variant[], ctx: z.RefinementCtx): void {
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

export const ProductInputSchema = z
  .strictObject({
    external_product_id: ExternalId,
    title: z.string().min(1).max(500),
    category: z
      .string()
      .regex(/^[^/\s][^/]*(\/[^/]+)*$/, 'must be a slash-separated path such as "beverages/coffee"')
      .max(500)
      .optional(),
    status: z.enum(PARTNER_PRODUCT_STATUSES).default('active').meta({ description: '`archived` is set only by DELETE.' }),
    availability: z.enum(AVAILABILITIES).default('in_stock'),
    source_version: SourceVersion,
    variants: z.array(VariantSchema).min(1).max(MAX_VARIANTS_PER_PRODUCT),
  })
  .superRefine((p, ctx) => variantIssues(p.variants, ctx))
  .meta({ id: 'ProductInput' });
export type ProductInput = z.output<typeof ProductInputSchema>;

export const ProductBatchSchema = z.strictObject({ products: z.array(ProductInputSchema).max(MAX_PRODUCTS_PER_BATCH) }).meta({ id: 'ProductBatch' });

/**
 * What the pipeline checks before the batch is split: each product is validated on its own,
 * so one bad product never fails the batch.
 */
export const ProductBatchEnvelope = z.strictObject({ products: z.array(z.unknown()) });

let compiledProductInput: typeof ProductInputSchema | undefined;

/**
 * One product of a batch checked against ProductInputSchema through zod's generated parser
 * (`z.compile`, built on the first batch, not at load): a 500-product batch validates in about
 * half the runtime parser's time. An input the fast path refuses goes to the runtime parser, so
 * the answer and the issues are the schema's own (test/unit/catalog/compiled-product-input.test.ts).
 */
export function parseProductInput(raw: unknown) {
  compiledProductInput ??= z.compile(ProductInputSchema);
  return compiledProductInput.safeParse(raw);
}

export const ItemErrorSchema = answerSchema(() =>
  z
    .object({ code: z.string(), pointer: z.string(), message: z.string() })
    .meta({ id: 'ItemError', description: 'Why one item of a batch was rejected; pointer is into the request body.' }),
);

export const BatchResultSchema = answerSchema(() =>
  z
    .object({
      accepted: z.number().int(),
      rejected: z.number().int(),
      results: z.array(
        z.object({
          index: z.number().int().meta({ description: 'Position in `products[]`' }),
          external_product_id: z.string().nullable(),
          outcome: z.enum(['upserted', 'unchanged', 'rejected']),
          source_version: z.string().optional(),
          errors: z.array(ItemErrorSchema).optional().meta({ description: 'The first 10 reasons' }),
          errors_total: z.number().int().optional().meta({ description: 'How many reasons there were, when more than `errors` lists' }),
        }),
      ),
    })
    .meta({ id: 'ProductBatchResult' }),
);

/** What a product and its summary both begin with (built inside each answer's builder, on first use). */
const productHeadline = () => ({
  external_product_id: z.string(),
  title: z.string(),
  category: z.string().nullable(),
  status: z.enum(PRODUCT_STATUSES),
  availability: z.enum(AVAILABILITIES),
});

const timestamps = {
  created_at: UtcTime,
  updated_at: UtcTime,
};

export const ProductSchema = answerSchema(() =>
  z
    .object({
      ...productHeadline(),
      source_version: z.string(),
      variants: z.array(VariantSchema),
      archived_at: UtcTime.nullable(),
      ...timestamps,
    })
    .meta({ id: 'Product' }),
);
export type Product = z.output<typeof ProductSchema>;

export const ProductSummarySchema = answerSchema(() =>
  z
    .object({
      ...productHeadline(),
      variant_count: z.number().int(),
      source_version: z.string(),
      updated_at: UtcTime,
    })
    .meta({ id: 'ProductSummary' }),
);

const booleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

export const ProductListQuery = z.strictObject({
  q: z.string().min(1).max(200).optional().meta({ description: 'Case-insensitive substring of the title or the external id' }),
  category: z.string().min(1).max(500).optional().meta({ description: 'Category path prefix, whole segments: `food` matches `food/fruit`, not `foodstuff`' }),
  status: z.enum(PRODUCT_STATUSES).optional(),
  availability: z.enum(AVAILABILITIES).optional(),
  include_archived: booleanQuery.default(false).meta({ description: 'Archived products are left out unless true (or status=archived)' }),
});
