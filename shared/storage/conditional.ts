/**
 * The one place that reads DynamoDB's "your condition did not hold" answers: a refused
 * conditional write is an expected outcome (someone else wrote first), not a failure.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** True when a single-item write was refused by its condition. */
export const isConditionFailed = (error: unknown): error is ConditionalCheckFailedException => error instanceof ConditionalCheckFailedException;

/** Awaits a conditional write: true when it landed, false when its condition refused it. */
export async function succeededUnlessConditionFailed(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/** True when a transaction was cancelled because the condition of action `index` failed. */
export const conditionFailedAt = (error: unknown, index: number): boolean =>
  (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed';

/** The stored item of a transaction's refused condition, by the index of its action. */
export function cancelledItem(error: unknown, index: number): Record<string, unknown> | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  const item = error.CancellationReasons?.[index]?.Item;
  return item ? unmarshall(item) : undefined;
}
