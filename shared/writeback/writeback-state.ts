/**
 * A confirmed result's write-back, as stored on the result item: its attempts so far and its
 * stream-work due entry, which stays until the write-back is settled (written, or failed for
 * good) and brings the next attempt through the reconciler's sweep.
 */
import { streamRecoverySeconds, tableName } from '../storage/clients.ts';
import { landed } from '../storage/conditional.ts';
import { writeBackAttemptsOf } from './writeback.ts';

/**
 * Claims the next attempt: one conditional write counts it and moves the due entry to when
 * the attempt after it may run. A duplicate or replayed record that finds the count moved on
 * (another run took this attempt, or the write-back is settled) claims nothing, so no record
 * writes back twice.
 */
export function claimWriteBackAttempt(result: Record<string, unknown>, now: Date): Promise<boolean> {
  const seen = writeBackAttemptsOf(result);
  const retryAt = new Date(now.getTime() + (seen + 1) * streamRecoverySeconds() * 1000);
  return landed({
    update: {
      TableName: tableName(),
      Key: { pk: result.pk, sk: result.sk },
      UpdateExpression: 'SET writeback_attempts = :next, gsi2sk = :retryAt',
      ConditionExpression: `attribute_exists(gsi2pk) AND ${seen === 0 ? 'attribute_not_exists(writeback_attempts)' : 'writeback_attempts = :seen'}`,
      ExpressionAttributeValues: { ':next': seen + 1, ':retryAt': retryAt.toISOString(), ...(seen === 0 ? {} : { ':seen': seen }) },
    },
  });
}

/** Settles the write-back (`written`, `failed` or `not_needed`) and removes its due entry. */
export function settleWriteBack(result: Record<string, unknown>, state: 'written' | 'failed' | 'not_needed'): Promise<boolean> {
  return landed({
    update: {
      TableName: tableName(),
      Key: { pk: result.pk, sk: result.sk },
      UpdateExpression: 'SET writeback_state = :state REMOVE gsi2pk, gsi2sk',
      ConditionExpression: 'attribute_exists(gsi2pk)',
      ExpressionAttributeValues: { ':state': state },
    },
  });
}
