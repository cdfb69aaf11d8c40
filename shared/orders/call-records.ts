/** What a finished call writes beside its order: the attempt (with a sandbox transcript) and the result. */

import type { AttemptReport } from '../calls/call-platform.ts';
import { DECIDED_OUTCOMES, type OrderResult } from '../calls/call-schemas.ts';
import { keys } from '../storage/keys.ts';
import type { CallRecords, StoredOrder } from './order.ts';

/**
 * What an ended call writes with its order change: the attempt and, when the order completes,
 * the result (their events go into the order's log with the change). Both were caused by the
 * change that started the call (`inCall`'s newest status event).
 */
export function callRecords(inCall: StoredOrder, report: AttemptReport, result?: OrderResult, writeBackEnabled = false): CallRecords {
  const attempt = inCall.call_attempts;
  const attemptData = { attempt, call_disposition: report.call_disposition, started_at: report.started_at, ended_at: report.ended_at };
  return {
    // The sandbox's transcript is written once, with its attempt; a live call keeps none.
    attempt: {
      ...keys.orderAttempt(inCall.pk, attempt),
      entity: 'call_attempt',
      ...attemptData,
      ...(report.transcript ? { transcript: report.transcript } : {}),
    },
    ...(result
      ? {
          result: {
            ...keys.orderResult(inCall.pk),
            entity: 'result',
            tenant: inCall.tenant,
            ...result,
            // The write-back tells the store which order's events this result belongs with.
            correlation_id: inCall.correlation_id,
            ...(report.scenario ? { scenario: report.scenario } : {}),
            // Only a result to write back starts stream work (its due entry, then its settlement): two index writes and an update the others never need.
            ...(writeBackEnabled && DECIDED_OUTCOMES.includes(result.business_outcome) ? { writeback_state: 'pending' } : {}),
          },
        }
      : {}),
    causeRevision: inCall.status_revision,
  };
}
