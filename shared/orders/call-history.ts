/**
 * An order's results and call history (spec 4.5): the result item, the attempts kept with the
 * order, and the reports policy: no recordings ever; a transcript of each simulated
 * conversation for sandbox tenants, none for live calls.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type CallHistoryAttempt, CallHistoryAttemptSchema, type OrderResult, ResultSchema } from '../calls/call-schemas.ts';
import { ResultNotAvailableError } from '../errors.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { decodeCursor, encodeCursor } from '../storage/pagination.ts';
import type { TenantMode } from '../tenants/tenant-config.ts';
import { orderCollection } from './order-records.ts';
import { getOrder } from './order-store.ts';
import { isFinal } from './state-machine.ts';

export async function getResult(tenant: string, id: string): Promise<OrderResult> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.orderResult(keys.order(tenant, id).pk) }));
  if (!Item) {
    const order = await getOrder(tenant, id);
    throw new ResultNotAvailableError(id, order.processing_state, !isFinal(order.processing_state));
  }
  const writeback = { state: (Item.writeback_state as string | undefined) ?? 'not_needed', attempts: Number(Item.writeback_attempts ?? 0) };
  return ResultSchema.parse({ ...Item, writeback });
}

/**
 * What is kept of a call besides its attempt. A sandbox attempt keeps its transcript with it, as
 * long as the order (retention_days 0: no period of its own); a live call keeps no recording
 * and no transcript: what a customer said is not stored by this service.
 */
export function reportsPolicy(mode: TenantMode) {
  return mode === 'sandbox'
    ? {
        recordings: { available: false, retention_days: 0 },
        transcripts: { available: true, retention_days: 0 },
        how_to_request:
          'Each attempt of a sandbox tenant carries the transcript of its simulated conversation (`transcript`), kept as long as the order. No recordings are made.',
      }
    : {
        recordings: { available: false, retention_days: 0 },
        transcripts: { available: false, retention_days: 0 },
        how_to_request:
          'Live calls are neither recorded nor transcribed by this service; the call history keeps each attempt, its disposition and times. Questions about a call: support, quoting the order id and its correlation_id.',
      };
}

export async function listCalls(tenant: string, id: string, page: { limit: number; cursor?: string | undefined }) {
  const order = await getOrder(tenant, id);
  const scope = { tenant, list: 'calls', filters: { order: id } };
  const after = await decodeCursor(scope, page.cursor);
  const { items, last } = await orderCollection<CallHistoryAttempt>(order.pk, 'ATTEMPT#', { ...(after ? { after } : {}), limit: page.limit });
  return {
    data: items.map((a) => CallHistoryAttemptSchema.parse(a)),
    next_cursor: last ? await encodeCursor(scope, last) : null,
  };
}
