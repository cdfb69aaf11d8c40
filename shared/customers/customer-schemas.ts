/** Customers (spec 2.2, 4.3): the upsert body and the sanitized view, in one place. */
import * as z from 'zod/mini';
import { answerSchema } from '../api/answer-schema.ts';
import { Rfc3339, SourceVersion, UtcTime } from '../api/fields.ts';
import { builtOnFirstUse, meta, text } from '../api/zod.ts';

const isLanguageTag = (tag: string) => {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
};

export const ConsentProofSchema = builtOnFirstUse(() =>
  z.strictObject({
    source: meta(text(1, 200), { description: 'Where consent was collected, e.g. checkout' }),
    reference: meta(text(1, 500), { description: 'Your reference to the stored proof; erased by anonymize' }),
    collected_at: meta(Rfc3339, { description: 'RFC 3339; not in the future' }),
  }),
);

export const CustomerInputSchema = builtOnFirstUse(() =>
  meta(
    z
      .strictObject({
        phone: z.string().check(z.regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number such as +4915112345678')),
        locale: z.string().check(z.maxLength(35), z.refine(isLanguageTag, 'must be a BCP 47 language tag such as de-DE')),
        consent: z.strictObject({
          status: meta(z.enum(['granted', 'withdrawn']), { description: 'Calls need `granted`; `withdrawn` stops them (proof optional).' }),
          proof: meta(z.optional(ConsentProofSchema), { description: 'Required when status is granted' }),
        }),
        source_version: SourceVersion,
      })
      .check(
        z.superRefine((c, ctx) => {
          if (c.consent.status === 'granted' && !c.consent.proof) {
            ctx.addIssue({ code: 'custom', path: ['consent', 'proof'], message: 'is required when consent.status is granted' });
          }
        }),
      ),
    { id: 'CustomerInput' },
  ),
);
export type CustomerInput = z.output<typeof CustomerInputSchema>;

export const CustomerUpsertResultSchema = answerSchema(() =>
  meta(
    z.object({
      external_customer_id: z.string(),
      outcome: z.enum(['upserted', 'unchanged']),
      consent: z.object({ status: z.enum(['granted', 'withdrawn']) }),
    }),
    { id: 'CustomerUpsertResult' },
  ),
);

export const CustomerSchema = answerSchema(() =>
  meta(
    z.object({
      external_customer_id: z.string(),
      phone_masked: meta(z.nullable(z.string()), {
        description: 'Country code and last two digits only, e.g. +49******12; null once anonymized',
        example: '+49******12',
      }),
      locale: z.string(),
      consent: z.object({
        status: z.enum(['granted', 'withdrawn']),
        proof: z.nullable(z.object({ source: z.string(), collected_at: UtcTime })),
      }),
      source_version: z.string(),
      anonymized_at: z.nullable(UtcTime),
      created_at: UtcTime,
      updated_at: UtcTime,
    }),
    { id: 'Customer', description: 'The sanitized view: never the phone number or the proof reference.' },
  ),
);
export type Customer = z.output<typeof CustomerSchema>;

export const AnonymizeResultSchema = answerSchema(() =>
  meta(z.object({ external_customer_id: z.string(), outcome: z.literal('anonymized'), anonymized_at: UtcTime }), { id: 'AnonymizeResult' }),
);
