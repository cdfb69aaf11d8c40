/**
 * On-call's view of deliveries (the admin CLI's `deliveries` and `recover`): find them by
 * tenant, status, event type and time, read one with its attempt log, and re-send a tenant's
 * failed ones since a time, as Svix's recover does. Identifiers, states and masked excerpts
 * only: never a payload.
 */

import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../errors.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { deliveryFromItem, deliveryView, shownDelivery } from './delivery-item.ts';
import { deadLettersToRecover, listDeliveries } from './delivery-list.ts';
import { markRecovered } from './delivery-store.ts';
import { replayDelivery } from './replay.ts';
import type { Delivery, DeliveryStatus } from './webhook-schemas.ts';

export interface DeliveryFilter {
  /** Without one, every tenant's deliveries are scanned (a table scan: for on-call, not for load). */
  tenant?: string | undefined;
  status?: DeliveryStatus | undefined;
  eventType?: string | undefined;
  /** Deliveries created at or after this instant. */
  since?: Date | undefined;
}

export type FoundDelivery = Delivery & { tenant: string };

const matches = (d: Delivery, filter: DeliveryFilter) =>
  (!filter.status || d.status === filter.status) &&
  (!filter.eventType || d.event_type === filter.eventType) &&
  (!filter.since || Date.parse(d.created_at) >= filter.since.getTime());

/** The deliveries that match, newest first for one tenant (the partner's list), in table order across tenants. */
export async function* findDeliveries(filter: DeliveryFilter): AsyncGenerator<FoundDelivery> {
  if (filter.tenant) {
    let cursor: string | undefined;
    do {
      const page = await listDeliveries(filter.tenant, filter.status, { limit: 200, cursor });
      for (const view of page.data as Delivery[]) {
        if (filter.since && Date.parse(view.created_at) < filter.since.getTime()) return;
        if (matches(view, filter)) yield { ...view, tenant: filter.tenant };
      }
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return;
  }
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tableClient().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'entity = :delivery',
        ExpressionAttributeValues: { ':delivery': 'delivery' },
        ProjectionExpression: 'pk, sk, tenant, list_view, delivering_until',
        ExclusiveStartKey: startKey,
      }),
    );
    const now = new Date();
    for (const item of page.Items ?? []) {
      const found = { ...shownDelivery(deliveryFromItem(item), now), tenant: String(item.tenant) };
      if (matches(found, filter)) yield found;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

export interface AttemptRecord {
  attempt: number;
  at: string;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  request_excerpt?: string;
  response_excerpt?: string;
}

/** One delivery with its attempt log (excerpts are masked when written). */
export async function deliveryWithAttempts(tenant: string, deliveryId: string): Promise<{ delivery: FoundDelivery; attempts: AttemptRecord[] } | undefined> {
  const { pk } = keys.delivery(tenant, deliveryId);
  const { Items = [] } = await tableClient().send(
    new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true }),
  );
  const item = Items.find((i) => i.entity === 'delivery');
  if (!item) return undefined;
  const delivery = { ...shownDelivery(deliveryFromItem(item), new Date()), tenant };
  // An entry past the delivery's count is an attempt whose record has not landed (or never will).
  const attempts = Items.filter((i) => i.entity === 'delivery_attempt' && (i.attempt as number) <= delivery.attempts).map(
    ({ attempt, at, status_code, error, latency_ms, request_excerpt, response_excerpt }) =>
      ({ attempt, at, status_code, error, latency_ms, request_excerpt, response_excerpt }) as AttemptRecord,
  );
  return { delivery, attempts: attempts.sort((a, b) => a.attempt - b.attempt) };
}

export interface Recovery {
  recovered: { original: string; replay: string }[];
  /** More are left: the limit was reached, or `admit` refused the next (it threw after at least one). */
  more: boolean;
}

/**
 * Re-sends the dead-lettered deliveries of `tenant` created since `since` and not recovered
 * yet: each a new delivery (`replay_of`) with the same event id, noted on the original as
 * `recovered_by` (after the new one exists: a crash between sends again, never loses one).
 * At most `limit`; `admit` is asked before each (a partner's send limit), and once it refuses
 * after some were sent, the rest are left for the next call.
 */
export async function recoverDeliveries(
  tenant: string,
  since: Date,
  now = new Date(),
  options: { limit?: number; admit?: () => Promise<void> } = {},
): Promise<Recovery> {
  const recovered: Recovery['recovered'] = [];
  for await (const d of deadLettersToRecover(tenant, since)) {
    // Re-sent before its entry moved to the recovered partition: moved now, so no call reads it again.
    if (d.recovered_by) {
      await markRecovered(tenant, d.delivery_id, d.recovered_by);
      continue;
    }
    if (recovered.length === (options.limit ?? Number.POSITIVE_INFINITY)) return { recovered, more: true };
    try {
      await options.admit?.();
    } catch (error) {
      if (recovered.length === 0) throw error;
      return { recovered, more: true };
    }
    const replay = await replayDelivery(tenant, d.delivery_id, now);
    await markRecovered(tenant, d.delivery_id, replay.delivery_id);
    recovered.push({ original: d.delivery_id, replay: replay.delivery_id });
  }
  return { recovered, more: false };
}

/** One delivery with its attempt log (never its payload), or 404. */
export async function viewDelivery(tenant: string, deliveryId: string) {
  const found = await deliveryWithAttempts(tenant, deliveryId);
  if (!found) throw new NotFoundError(`No webhook delivery ${deliveryId}.`);
  return {
    ...deliveryView(found.delivery),
    attempt_log: found.attempts.map(({ attempt, at, status_code, error, latency_ms, response_excerpt }) => ({
      attempt,
      at,
      status_code,
      error,
      latency_ms,
      response_excerpt: response_excerpt ?? '',
    })),
  };
}
