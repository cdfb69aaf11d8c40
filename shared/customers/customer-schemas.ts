/** Customers (spec 2.2, 4.3): the upsert body and the sanitized view, in one place. */
import * as z from 'zod';
import { answerSchema } from '../api/answer-schema.ts';
import { Rfc3339, SourceVersion, UtcTime } from '../api/fields.ts';

/** Accepted clock skew for `collected_at`, the same as the signing window. */
export const COLLECTED_AT_SKEW_SECONDS = 300;

const isLanguageTag = (tag: string) => {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
};

export const ConsentProofSchema = z.strictObject({
  source: z.string().min(1).max(200).meta({ description: 'Where consent was collected, e.g. checkout' }),
  reference: z.string().min(1).max(500).meta({ description: 'Your reference to the stored proof; erased by anonymize' }),
  collected_at: Rfc3339.meta({ description: 'RFC 3339; not in the future' }),
});

export const CustomerInputSchema = z
  .strictObject({
    phone: z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number such as +4915112345678'),
    locale: z.string().max(35).refine(isLanguageTag, 'must be a BCP 47 language tag such as de-DE'),
    consent: z.strictObject({
      status: z.enum(['granted', 'withdrawn']).meta({ description: 'Calls need `granted`; `withdrawn` stops them (proof optional).' }),
      proof: ConsentProofSchema.optional().meta({ description: 'Required when status is granted' }),
    }),
    source_version: SourceVersion,
  })
  .superRefine((c, ctx) => {
    if (c.consent.status === 'granted' && !c.consent.proof) {
      ctx.addIssue({ code: 'custom', path: ['consent', 'proof'], message: 'is required when consent.status is granted' });
    }
  })
  .meta({ id: 'CustomerInput' });
export type CustomerInput = z.output<typeof CustomerInputSchema>;

export const CustomerUpsertResultSchema = answerSchema(() =>
  z
    .object({
      external_customer_id: z.string(),
      outcome: z.enum(['upserted', 'unchanged']),
      consent: z.object({ status: z.enum(['granted', 'withdrawn']) }),
    })
    .meta({ id: 'CustomerUpsertResult' }),
);

export const CustomerSchema = answerSchema(() =>
  z
    .object({
      external_customer_id: z.string(),
      phone_masked: z
        .string()
        .nullable()
        .meta({ description: 'Country code and last two digits only, e.g. +49******12; null once anonymized', example: '+49******12' }),
      locale: z.string(),
      consent: z.object({
        status: z.enum(['granted', 'withdrawn']),
        proof: z.object({ source: z.string(), collected_at: UtcTime }).nullable(),
      }),
      source_version: z.string(),
      anonymized_at: UtcTime.nullable(),
      created_at: UtcTime,
      updated_at: UtcTime,
    })
    .meta({ id: 'Customer', description: 'The sanitized view: never the phone number or the proof reference.' }),
);
export type Customer = z.output<typeof CustomerSchema>;

export const AnonymizeResultSchema = answerSchema(() =>
  z.object({ external_customer_id: z.string(), outcome: z.literal('anonymized'), anonymized_at: UtcTime }).meta({ id: 'AnonymizeResult' }),
);
