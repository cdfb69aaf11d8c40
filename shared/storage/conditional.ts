/**
 * The one place that reads DynamoDB's "your condition did not hold" answers: a refused
 * conditional write is an expected outcome (someone else wrote first), not a failure.
 */
import { randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, type PutCommandInput, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { tableClient } from './clients.ts';

/** True when a single-item write was refused by its condition. */
export const isConditionFailed = (error: unknown): error is ConditionalCheckFailedException => error instanceof ConditionalCheckFailedException;

/** True when a transaction was cancelled because the condition of action `index` failed. */
export const conditionFailedAt = (error: unknown, index: number): boolean =>
  (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed';

/** The stored item of a transaction's refused condition, by the index of its action. */
export function cancelledItem(error: unknown, index: number): Record<string, unknown> | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  const item = error.CancellationReasons?.[index]?.Item;
  return item ? unmarshall(item) : undefined;
}

/**
 * The attribute holding the token of the conditional write that last changed an item. It is
 * how a write recognises its own earlier success: when the connection drops after DynamoDB
 * applied a write, the SDK sends it again and the retry meets the item the first attempt wrote.
 */
export const WRITE_TOKEN = 'wt';

export type ConditionalOutcome =
  /** `item`: what `ReturnValues` asked for; on a repeated write, the item as it now stands. */
  | { written: true; item: Record<string, unknown> | undefined; repeated: boolean }
  /** `item`: the item that failed the condition, if there is one. */
  | { written: false; item: Record<string, unknown> | undefined };

type ConditionalPut = Omit<PutCommandInput, 'ReturnValuesOnConditionCheckFailure'> & { ConditionExpression: string };
type ConditionalUpdate = Omit<UpdateCommandInput, 'ReturnValuesOnConditionCheckFailure'> & { ConditionExpression: string; UpdateExpression: string };

/** `SET #wt = :wt` added to an update expression, whichever clauses it has. */
const stampUpdate = (expression: string) =>
  /\bSET\s/i.test(expression)
    ? expression.replace(/\bSET\s/i, `SET #${WRITE_TOKEN} = :${WRITE_TOKEN}, `)
    : `${expression} SET #${WRITE_TOKEN} = :${WRITE_TOKEN}`;

/**
 * The one way to write an item conditionally. The write carries a new token in the item and in
 * its condition (`… AND the item does not already carry this token`), so a retry of a write
 * that was applied fails its condition on an item with this very token: that is this write's
 * own success, answered as the first attempt would have been (`repeated`), never as someone
 * else's write, and not applied again. That holds while the item still carries this write's
 * token: when another stamped write lands between the first attempt and its retry, the retry's
 * condition is met again and the write applies twice. A `SET` of the same values is unharmed,
 * and so is an `ADD` or `DELETE` of a set element (the breaker's failures and the endpoint's
 * leases are counted so, one id each); an `ADD` of a number counts twice. The only numbers
 * added are limits' windows (the request rate, the dial rate), where a second count can only
 * refuse a request or a dial early in its window, never admit one more than the limit.
 * Transactions need none of this: the SDK gives each one a `ClientRequestToken`, and DynamoDB
 * answers a retried transaction that already succeeded with success.
 */
export async function writeConditionally(
  write: { put: ConditionalPut } | { update: ConditionalUpdate },
  options: { stamp?: boolean } = {},
): Promise<ConditionalOutcome> {
  if (options.stamp === false && 'update' in write) return unstampedUpdate(write.update);
  const token = randomBytes(12).toString('base64url');
  const input = 'put' in write ? write.put : write.update;
  const guarded = {
    ConditionExpression: `(${input.ConditionExpression}) AND (attribute_not_exists(#${WRITE_TOKEN}) OR #${WRITE_TOKEN} <> :${WRITE_TOKEN})`,
    ExpressionAttributeNames: { ...input.ExpressionAttributeNames, [`#${WRITE_TOKEN}`]: WRITE_TOKEN },
    ExpressionAttributeValues: { ...input.ExpressionAttributeValues, [`:${WRITE_TOKEN}`]: token },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
  try {
    const { Attributes } =
      'put' in write
        ? await tableClient().send(new PutCommand({ ...write.put, ...guarded, Item: { ...write.put.Item, [WRITE_TOKEN]: token } }))
        : await tableClient().send(new UpdateCommand({ ...write.update, ...guarded, UpdateExpression: stampUpdate(write.update.UpdateExpression) }));
    return { written: true, item: Attributes, repeated: false };
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    const item = error.Item ? unmarshall(error.Item) : undefined;
    return item?.[WRITE_TOKEN] === token ? { written: true, item, repeated: true } : { written: false, item };
  }
}

/**
 * An update whose condition alone makes it idempotent (it removes or moves an entry it saw, so
 * its retry after success is refused and changes nothing), on an item that another writer
 * stamps: its own stamp would replace that writer's between a landed write and its retry, and
 * that writer would take its own success for someone else's. It is answered `written: false`
 * on such a retry, which its callers treat as done.
 */
async function unstampedUpdate(update: ConditionalUpdate): Promise<ConditionalOutcome> {
  try {
    const { Attributes } = await tableClient().send(new UpdateCommand(update));
    return { written: true, item: Attributes, repeated: false };
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    return { written: false, item: undefined };
  }
}

/** True when the write landed (on this attempt or an earlier one of the same call), false when its condition refused it. */
export const landed = async (...args: Parameters<typeof writeConditionally>): Promise<boolean> => (await writeConditionally(...args)).written;
