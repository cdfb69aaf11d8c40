/** Orders, results and call attempts (spec 2.3 to 2.5, 4.4, 4.5): request and response shapes. */
import * as z from 'zod/mini';
import { answerSchema } from '../api/answer-schema.ts';
import { CurrencyCode, checkMoney, ExternalId, MoneyAmount, Rfc3339, SourceVersion, UtcTime } from '../api/fields.ts';
import { MAX_ORDER_ITEMS, ORDER_KINDS } from '../api/limits.ts';
import { ORDER_STATE } from '../api/order-states.ts';
import { builtOnFirstUse, builtSchema, integer, meta, text } from '../api/zod.ts';

export type OrderKind = (typeof ORDER_KINDS)[number];

export const OrderItemSchema = builtOnFirstUse(() =>
  meta(
    z
      .strictObject({
        external_variant_id: ExternalId,
        quantity: integer(1, 100_000),
        price: meta(MoneyAmount, { description: 'Unit price' }),
        currency: CurrencyCode,
      })
      .check(z.superRefine((item, ctx) => checkMoney(ctx, item.price, item.currency, ['price']))),
    { id: 'OrderItem' },
  ),
);
export type OrderItem = z.output<typeof OrderItemSchema>;

const Items = builtOnFirstUse(() =>
  z.array(OrderItemSchema).check(
    z.minLength(1),
    z.maxLength(MAX_ORDER_ITEMS),
    z.superRefine((items, ctx) => {
      const currency = items[0]?.currency;
      items.forEach((item, i) => {
        if (item.currency !== currency) ctx.addIssue({ code: 'custom', path: [i, 'currency'], message: `must be ${currency}, the currency of the first item` });
      });
    }),
  ),
);

export const ContactPermissionSchema = builtOnFirstUse(() =>
  meta(
    z.strictObject({
      status: z.enum(['granted', 'denied']),
      basis: z.optional(z.enum(['prior_purchase', 'explicit_consent', 'legitimate_interest'])),
      reference: meta(z.optional(text(1, 500)), { description: 'Your reference to the proof; erased when the customer is anonymized' }),
    }),
    { id: 'ContactPermission' },
  ),
);

const Confidence = builtOnFirstUse(() =>
  meta(z.string().check(z.regex(/^(0(\.\d{1,6})?|1(\.0{1,6})?)$/, 'must be a decimal string from 0 to 1, such as "0.85"')), {
    example: '0.85',
  }),
);
const Priority = builtOnFirstUse(() =>
  meta(integer(-1000, 1000), {
    description: "Higher is called first among this tenant's orders due at the same time; it never orders one tenant's calls against another's",
  }),
);

/** How far ahead an order may be held: the service is for calls to make, not a calendar. */
export const CONTACT_HORIZON_DAYS = 366;
const CONTACT_HORIZON_MS = CONTACT_HORIZON_DAYS * 86_400_000;
const ContactNotBefore = builtOnFirstUse(() =>
  meta(
    builtSchema(Rfc3339).check(
      z.refine((value) => Date.parse(value) <= Date.now() + CONTACT_HORIZON_MS, `must be at most ${CONTACT_HORIZON_DAYS} days after the request`),
    ),
    { description: `Earliest contact time, at most ${CONTACT_HORIZON_DAYS} days after the request (later is 422); stored and answered in UTC` },
  ),
);

export const OrderInputSchema = builtOnFirstUse(() =>
  meta(
    z
      .strictObject({
        order_kind: z.enum(ORDER_KINDS),
        external_order_id: ExternalId,
        external_customer_id: ExternalId,
        items: Items,
        contact_permission: ContactPermissionSchema,
        source_version: SourceVersion,
        contact_not_before: z.optional(ContactNotBefore),
        priority: z._default(Priority, 0),
        confidence: z.optional(Confidence),
      })
      .check(
        z.superRefine((o, ctx) => {
          if (o.order_kind === 'repurchase_intent') {
            for (const field of ['basis', 'reference'] as const) {
              if (!o.contact_permission[field])
                ctx.addIssue({ code: 'custom', path: ['contact_permission', field], message: 'is required for a repurchase_intent' });
            }
          }
        }),
      ),
    { id: 'OrderInput' },
  ),
);
export type OrderInput = z.output<typeof OrderInputSchema>;

export const OrderPatchSchema = builtOnFirstUse(() =>
  meta(
    z.strictObject({
      source_version: SourceVersion,
      items: z.optional(Items),
      priority: z.optional(Priority),
      contact_not_before: meta(z.optional(z.nullable(ContactNotBefore)), {
        description: `null clears it; at most ${CONTACT_HORIZON_DAYS} days after the request`,
      }),
      confidence: z.optional(z.nullable(Confidence)),
    }),
    { id: 'OrderPatch', description: 'Only the fields sent change; `order_kind`, the customer and the contact permission never change.' },
  ),
);
export type OrderPatch = z.output<typeof OrderPatchSchema>;

export const CancelSchema = builtOnFirstUse(() =>
  meta(
    z.strictObject({
      reason: z._default(z.enum(['customer_request', 'out_of_stock', 'duplicate', 'fraud_suspected', 'other']), 'customer_request'),
      source_version: meta(z.optional(SourceVersion), { description: 'When sent, must not be older than the stored version' }),
    }),
    { id: 'CancelRequest' },
  ),
);

export const OrderSchema = answerSchema(() =>
  meta(
    z.object({
      external_order_id: z.string(),
      order_kind: z.enum(ORDER_KINDS),
      external_customer_id: z.string(),
      items: z.array(OrderItemSchema),
      contact_permission: z.object({ status: z.string(), basis: z.optional(z.string()), reference: z.optional(z.string()) }),
      source_version: z.string(),
      contact_not_before: z.nullable(UtcTime),
      priority: integer(),
      confidence: z.nullable(z.string()),
      processing_state: ORDER_STATE,
      state_reason: z.nullable(z.string()),
      next_contact_at: z.nullable(UtcTime),
      call_attempts: integer(),
      correlation_id: z.string(),
      created_at: UtcTime,
      updated_at: UtcTime,
    }),
    { id: 'Order' },
  ),
);
export type Order = z.output<typeof OrderSchema>;

export const OrderSummarySchema = answerSchema(() =>
  meta(
    z.object({
      external_order_id: z.string(),
      order_kind: z.enum(ORDER_KINDS),
      external_customer_id: z.string(),
      processing_state: ORDER_STATE,
      priority: integer(),
      updated_at: UtcTime,
    }),
    { id: 'OrderSummary' },
  ),
);

export const OrderWriteResultSchema = answerSchema(() =>
  meta(
    z.object({
      external_order_id: z.string(),
      order_kind: z.optional(z.enum(ORDER_KINDS)),
      processing_state: ORDER_STATE,
      correlation_id: z.string(),
      outcome: z.enum(['created', 'updated', 'unchanged', 'cancelled']),
    }),
    { id: 'OrderWriteResult' },
  ),
);

/** The order list's own filters (with `limit` and `cursor`: `listQuery`). */
export const orderListFilters = () =>
  z.strictObject({
    processing_state: z.optional(ORDER_STATE),
    updated_since: meta(z.optional(Rfc3339), { description: 'Only orders updated at or after this instant' }),
  });
