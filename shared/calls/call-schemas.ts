/**
 * The call's vocabulary (spec 2.4, 2.5, 4.5): how an attempt went (`call_disposition`), what the
 * customer decided (`business_outcome`), the result and its final snapshot, an attempt as its event
 * and the call history show it. Orders, events and the call platforms all speak it.
 */
import * as z from 'zod/mini';
import { answerSchema } from '../api/answer-schema.ts';
import { UtcTime } from '../api/fields.ts';
import { ORDER_STATE } from '../api/order-states.ts';
import { integer, meta } from '../api/zod.ts';

export const CALL_DISPOSITIONS = ['answered', 'no_answer', 'busy', 'voicemail', 'failed', 'invalid_number'] as const;
export const BUSINESS_OUTCOMES = ['confirmed', 'modified', 'declined', 'unreachable', 'invalid_number'] as const;
export type CallDisposition = (typeof CALL_DISPOSITIONS)[number];
export type BusinessOutcome = (typeof BUSINESS_OUTCOMES)[number];
/** The outcomes the customer decided on the call (a store is told of these, and only these). */
export const DECIDED_OUTCOMES: readonly BusinessOutcome[] = ['confirmed', 'modified', 'declined'];

export const SnapshotSchema = answerSchema(() =>
  z.object({
    items: z.array(z.object({ external_variant_id: z.string(), quantity: integer(), price: z.string() })),
    currency: z.string(),
    total: meta(z.string(), { description: 'Exact decimal: the sum of price × quantity, with the currency minor units' }),
    confirmed: z.boolean(),
    reason: z.nullable(z.string()),
  }),
);
export type Snapshot = z.output<typeof SnapshotSchema>;

export const ResultSchema = answerSchema(() =>
  meta(
    z.object({
      external_order_id: z.string(),
      processing_state: ORDER_STATE,
      call_disposition: z.enum(CALL_DISPOSITIONS),
      business_outcome: z.enum(BUSINESS_OUTCOMES),
      final_order_snapshot: SnapshotSchema,
      applied_rules: meta(z.array(z.string()), { description: 'Ids of the sales rules whose suggestion the customer accepted' }),
      completed_at: UtcTime,
      writeback: meta(
        z.optional(
          z.object({
            state: z.enum(['pending', 'written', 'failed', 'not_needed']),
            attempts: integer(),
          }),
        ),
        {
          description:
            "The result's write-back to your store: `pending` while it is being written (`attempts` so far), `written` once your endpoint answered 2xx or 409, `failed` after a refusal or the last attempt (with `commerce.writeback.failed.v1`), `not_needed` when write-back is off or the customer decided nothing. An extension of the contract.",
        },
      ),
    }),
    { id: 'OrderResult' },
  ),
);
export type OrderResult = z.output<typeof ResultSchema>;

export const CallAttemptSchema = answerSchema(() =>
  meta(z.object({ attempt: integer(), call_disposition: z.enum(CALL_DISPOSITIONS), started_at: UtcTime, ended_at: UtcTime }), { id: 'CallAttempt' }),
);
export type CallAttempt = z.output<typeof CallAttemptSchema>;

/** What the simulated customer heard (`text`) and pressed (`key`, null: nothing within the time limit). */
export const TranscriptEntrySchema = answerSchema(() =>
  meta(
    z.object({
      speaker: z.enum(['service', 'customer']),
      text: meta(z.optional(z.string()), { description: "What the service said (the service's lines)" }),
      key: meta(z.optional(z.nullable(z.string())), { description: "The key the customer pressed, null for no input in time (the customer's lines)" }),
    }),
    { id: 'TranscriptEntry' },
  ),
);

/** A call attempt as the call history shows it: with the transcript of a sandbox tenant's simulated conversation. */
export const CallHistoryAttemptSchema = answerSchema(() =>
  meta(
    z.object({
      attempt: integer(),
      call_disposition: z.enum(CALL_DISPOSITIONS),
      started_at: UtcTime,
      ended_at: UtcTime,
      transcript: meta(z.optional(z.array(TranscriptEntrySchema)), {
        description:
          'Sandbox tenants only: the simulated conversation, exactly what a live customer would hear, and what the simulated customer pressed. Live calls keep no transcript. An extension of the contract.',
      }),
    }),
    { id: 'CallHistoryAttempt' },
  ),
);
export type CallHistoryAttempt = z.output<typeof CallHistoryAttemptSchema>;

export const ReportsPolicySchema = answerSchema(() =>
  meta(
    z.object({
      recordings: z.object({ available: z.boolean(), retention_days: integer() }),
      transcripts: z.object({ available: z.boolean(), retention_days: integer() }),
      how_to_request: z.string(),
    }),
    { id: 'ReportsPolicy' },
  ),
);
