/**
 * An order's results and call history (spec 4.5): the result item, the attempts kept with the
 * order, and the reports policy (no recordings or transcripts are made by this build).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ResultNotAvailableError } from '../errors.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { decodeCursor, encodeCursor } from '../storage/pagination.ts';
import { orderCollection } from './order-records.ts';
import { type CallAttempt, CallAttemptSchema, type OrderResult, ResultSchema } from './order-schemas.ts';
import { getOrder } from './order-store.ts';
import { isFinal } from './state-machine.ts';

export async function getResult(tenant: string, id: string): Promise<OrderResult> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.orderResult(keys.order(tenant, id).pk) }));
  if (!Item) {
    const order = await getOrder(tenant, id);
    throw new ResultNotAvailableError(id, order.processing_state, !isFinal(order.processing_state));
  }
  return ResultSchema.parse(Item);
}

/** No recordings or transcripts are kept by this build; attempts themselves are kept with the order. */
export const REPORTS_POLICY = {
  recordings: { available: false, retention_days: 0 },
  transcripts: { available: false, retention_days: 0 },
  how_to_request:
    'Recordings and transcripts are not made by the sandbox dialer. Where the voice platform keeps them, request them through support quoting the order id and its correlation_id; they are deleted after their retention period.',
};

export async function listCalls(tenant: string, id: string, page: { limit: number; cursor?: string | undefined }) {
  const order = await getOrder(tenant, id);
  const scope = { tenant, list: 'calls', filters: { order: id } };
  const after = await decodeCursor(scope, page.cursor);
  const { items, last } = await orderCollection<CallAttempt>(order.pk, 'ATTEMPT#', { ...(after ? { after } : {}), limit: page.limit });
  return {
    data: items.map((a) => CallAttemptSchema.parse(a)),
    next_cursor: last ? await encodeCursor(scope, last) : null,
  };
}
