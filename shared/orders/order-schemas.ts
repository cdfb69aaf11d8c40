/** Orders, results and call attempts (spec 2.3 to 2.5, 4.4, 4.5): request and response shapes. */
import * as z from 'zod';
import { checkMoney, CurrencyCode, ExternalId, MoneyAmount, Rfc3339, SourceVersion, UtcTime } from '../api/fields.ts';
import { ORDER_STATES } from './state-machine.ts';
import { answerSchema } from '../api/answer-schema.ts';
import { MAX_ORDER_ITEMS, ORDER_KINDS } from '../api/limits.ts';

export type OrderKind = (typeof ORDER_KINDS)[number];

export const CALL_DISPOSITIONS = ['answered', 'no_answer', 'busy', 'voicemail', 'failed', 'invalid_number'] as const;
export const BUSINESS_OUTCOMES = ['confirmed', 'modified', 'declined', 'unreachable', 'invalid_number'] as const;
export type CallDisposition = (typeof CALL_DISPOSITIONS)[number];
export type BusinessOutcome = (typeof BUSINESS_OUTCOMES)[number];

export const OrderItemSchema = z
  .strictObject({
    external_variant_id: ExternalId,
    quantity: z.number().int().min(1).max(100_000),
    price: MoneyAmount.meta({ description: 'Unit price' }),
    currency: CurrencyCode,
  })
  .superRefine((item, ctx) => checkMoney(ctx, item.price, item.currency, ['price']))
  .meta({ id: 'OrderItem' });
export type OrderItem = z.output<typeof OrderItemSchema>;

const Items = z
  .array(OrderItemSchema)
  .min(1)
  .max(MAX_ORDER_ITEMS)
  .superRefine((items, ctx) => {
    const currency = items[0]?.currency;
    items.forEach((item, i) => {
      if (item.currency !== currency) ctx.addIssue({ code: 'custom', path: [i, 'currency'], message: `must be ${currency}, the currency of the first item` });
    });
  });

export const ContactPermissionSchema = z
  .strictObject({
    status: z.enum(['granted', 'denied']),
    basis: z.enum(['prior_purchase', 'explicit_consent', 'legitimate_interest']).optional(),
    reference: z.string().min(1).max(500).optional().meta({ description: 'Your reference to the proof; erased when the customer is anonymized' }),
  })
  .meta({ id: 'ContactPermission' });

const Confidence = z
  .string()
  .regex(/^(0(\.\d{1,6})?|1(\.0{1,6})?)$/, 'must be a decimal string from 0 to 1, such as "0.85"')
  .meta({ example: '0.85' });
const Priority = z
  .number()
  .int()
  .min(-1000)
  .max(1000)
  .meta({ description: "Higher is called first among this tenant's orders due at the same time; it never orders one tenant's calls against another's" });

/** How far ahead an order may be held: the service is for calls to make, not a calendar. */
export const CONTACT_HORIZON_DAYS = 366;
const CONTACT_HORIZON_MS = CONTACT_HORIZON_DAYS * 86_400_000;
const ContactNotBefore = Rfc3339.refine(
  (value) => Date.parse(value) <= Date.now() + CONTACT_HORIZON_MS,
  `must be at most ${CONTACT_HORIZON_DAYS} days after the request`,
).meta({ description: `Earliest contact time, at most ${CONTACT_HORIZON_DAYS} days after the request (later is 422); stored and answered in UTC` });

export const OrderInputSchema = z
  .strictObject({
    order_kind: z.enum(ORDER_KINDS),
    external_order_id: ExternalId,
    external_customer_id: ExternalId,
    items: Items,
    contact_permission: ContactPermissionSchema,
    source_version: SourceVersion,
    contact_not_before: ContactNotBefore.optional(),
    priority: Priority.default(0),
    confidence: Confidence.optional(),
  })
  .superRefine((o, ctx) => {
    if (o.order_kind === 'repurchase_intent') {
      for (const field of ['basis', 'reference'] as const) {
        if (!o.contact_permission[field]) ctx.addIssue({ code: 'custom', path: ['contact_permission', field], message: 'is required for a repurchase_intent' });
      }
    }
  })
  .meta({ id: 'OrderInput' });
export type OrderInput = z.output<typeof OrderInputSchema>;

export const OrderPatchSchema = z
  .strictObject({
    source_version: SourceVersion,
    items: Items.optional(),
    priority: Priority.optional(),
    contact_not_before: ContactNotBefore.nullable()
      .optional()
      .meta({ description: `null clears it; at most ${CONTACT_HORIZON_DAYS} days after the request` }),
    confidence: Confidence.nullable().optional(),
  })
  .meta({ id: 'OrderPatch', description: 'Only the fields sent change; `order_kind`, the customer and the contact permission never change.' });
export type OrderPatch = z.output<typeof OrderPatchSchema>;

export const CancelSchema = z
  .strictObject({
    reason: z.enum(['customer_request', 'out_of_stock', 'duplicate', 'fraud_suspected', 'other']).default('customer_request'),
    source_version: SourceVersion.optional().meta({ description: 'When sent, must not be older than the stored version' }),
  })
  .meta({ id: 'CancelRequest' });

export const ORDER_STATE = z.enum(ORDER_STATES);

export const OrderSchema = answerSchema(() =>
  z
    .object({
      external_order_id: z.string(),
      order_kind: z.enum(ORDER_KINDS),
      external_customer_id: z.string(),
      items: z.array(OrderItemSchema),
      contact_permission: z.object({ status: z.string(), basis: z.string().optional(), reference: z.string().optional() }),
      source_version: z.string(),
      contact_not_before: UtcTime.nullable(),
      priority: z.number().int(),
      confidence: z.string().nullable(),
      processing_state: ORDER_STATE,
      state_reason: z.string().nullable(),
      next_contact_at: UtcTime.nullable(),
      call_attempts: z.number().int(),
      correlation_id: z.string(),
      created_at: UtcTime,
      updated_at: UtcTime,
    })
    .meta({ id: 'Order' }),
);
export type Order = z.output<typeof OrderSchema>;

export const OrderSummarySchema = answerSchema(() =>
  z
    .object({
      external_order_id: z.string(),
      order_kind: z.enum(ORDER_KINDS),
      external_customer_id: z.string(),
      processing_state: ORDER_STATE,
      priority: z.number().int(),
      updated_at: UtcTime,
    })
    .meta({ id: 'OrderSummary' }),
);

export const OrderWriteResultSchema = answerSchema(() =>
  z
    .object({
      external_order_id: z.string(),
      order_kind: z.enum(ORDER_KINDS).optional(),
      processing_state: ORDER_STATE,
      correlation_id: z.string(),
      outcome: z.enum(['created', 'updated', 'unchanged', 'cancelled']),
    })
    .meta({ id: 'OrderWriteResult' }),
);

export const SnapshotSchema = answerSchema(() =>
  z.object({
    items: z.array(z.object({ external_variant_id: z.string(), quantity: z.number().int(), price: z.string() })),
    currency: z.string(),
    total: z.string().meta({ description: 'Exact decimal: the sum of price × quantity, with the currency minor units' }),
    confirmed: z.boolean(),
    reason: z.string().nullable(),
  }),
);
export type Snapshot = z.output<typeof SnapshotSchema>;

export const ResultSchema = answerSchema(() =>
  z
    .object({
      external_order_id: z.string(),
      processing_state: ORDER_STATE,
      call_disposition: z.enum(CALL_DISPOSITIONS),
      business_outcome: z.enum(BUSINESS_OUTCOMES),
      final_order_snapshot: SnapshotSchema,
      applied_rules: z.array(z.string()).meta({ description: 'Ids of the sales rules whose suggestion the customer accepted' }),
      completed_at: UtcTime,
    })
    .meta({ id: 'OrderResult' }),
);
export type OrderResult = z.output<typeof ResultSchema>;

export const CallAttemptSchema = answerSchema(() =>
  z.object({ attempt: z.number().int(), call_disposition: z.enum(CALL_DISPOSITIONS), started_at: UtcTime, ended_at: UtcTime }).meta({ id: 'CallAttempt' }),
);
export type CallAttempt = z.output<typeof CallAttemptSchema>;

export const ReportsPolicySchema = answerSchema(() =>
  z
    .object({
      recordings: z.object({ available: z.boolean(), retention_days: z.number().int() }),
      transcripts: z.object({ available: z.boolean(), retention_days: z.number().int() }),
      how_to_request: z.string(),
    })
    .meta({ id: 'ReportsPolicy' }),
);

export const OrderListQuery = z.strictObject({
  processing_state: ORDER_STATE.optional(),
  updated_since: Rfc3339.optional().meta({ description: 'Only orders updated at or after this instant' }),
});
