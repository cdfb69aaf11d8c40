/** The tenant's deliveries as partners read them: the list (newest first) and the subscription's health. */
import { batchGet } from '../storage/batch.ts';
import { keys } from '../storage/keys.ts';
import { type ListSource, listPages, paginate, sourcesOf } from '../storage/pagination.ts';
import { ATTEMPTABLE_STATUSES, attemptUnderWay, deliveryFromItem, deliveryView, mayBeUnderWay, RECOVERED_FACET } from './delivery-item.ts';
import { HEALTH_SAMPLE, healthFromDeliveries, type WebhookHealth } from './health.ts';
import type { Delivery, DeliveryStatus } from './webhook-schemas.ts';

/**
 * Where a status's deliveries are read: queued, retrying and dead-lettered ones from their own
 * index partitions; delivered ones, most of all, from the list with a filter; `delivering`
 * ones (an attempt's lease on a queued or retrying delivery) from those two statuses' partitions.
 */
function sourcesFor(tenant: string, status: DeliveryStatus | undefined): ListSource[] {
  if (!status) return sourcesOf('gsi1', keys.listShards(tenant, 'DELIVERIES'));
  if (status === 'delivered') {
    return sourcesOf('gsi1', keys.listShards(tenant, 'DELIVERIES'), {
      ConditionExpression: '#view.#status = :delivered',
      ExpressionAttributeNames: { '#view': 'list_view', '#status': 'status' },
      ExpressionAttributeValues: { ':delivered': 'delivered' },
    });
  }
  const stored: readonly string[] = status === 'delivering' ? ATTEMPTABLE_STATUSES : status === 'dead_lettered' ? [status, RECOVERED_FACET] : [status];
  return stored.flatMap((s) => sourcesOf('gsi3', keys.facetShards(tenant, 'DELIVERIES', [s])));
}

/** The tenant's dead letters not re-sent yet, created at or after `since`, newest first: what a recovery reads. */
export async function* deadLettersToRecover(tenant: string, since: Date): AsyncGenerator<Delivery> {
  const sources = sourcesOf('gsi3', keys.facetShards(tenant, 'DELIVERIES', ['dead_lettered']));
  for await (const page of listPages({ sources, descending: true }, 100)) {
    for (const view of page.map((v) => deliveryView(v as unknown as Delivery))) {
      if (Date.parse(view.created_at) < since.getTime()) return;
      yield view;
    }
  }
}

/**
 * The views as partners see them: `delivering` where an attempt holds a queued or retrying
 * delivery. The lease is on the delivery's record, not in its index entries (a claim rewrites
 * one item, not three), so those few are read from their records.
 */
async function shownViews(tenant: string, views: readonly Record<string, unknown>[], now: Date): Promise<Delivery[]> {
  const listed = views.map((v) => deliveryView(v as unknown as Delivery));
  const open = listed.filter(mayBeUnderWay);
  if (open.length === 0) return listed;
  const records = (await batchGet<Record<string, unknown>>(open.map((d) => keys.delivery(tenant, d.delivery_id)))).map(deliveryFromItem);
  const underWay = new Set(records.filter((d) => attemptUnderWay(d, now)).map((d) => d.delivery_id));
  return listed.map((d) => (underWay.has(d.delivery_id) ? { ...d, status: 'delivering' } : d));
}

export async function listDeliveries(tenant: string, status: DeliveryStatus | undefined, page: { limit: number; cursor?: string | undefined }) {
  const { data, next_cursor } = await paginate({ tenant, list: 'webhook-deliveries', filters: { status } }, page, {
    sources: sourcesFor(tenant, status),
    descending: true,
  });
  const shown = await shownViews(tenant, data, new Date());
  // A queued or retrying page may hold deliveries an attempt now holds, and the reverse: a page may be short.
  return { data: status ? shown.filter((d) => d.status === status) : shown, next_cursor };
}

/** The subscription's health from its newest deliveries (at most the last 1,000, within 24 h). */
export async function deliveryHealth(tenant: string, now: Date): Promise<WebhookHealth> {
  const views: Delivery[] = [];
  const since = new Date(now.getTime() - 24 * 3600_000).toISOString();
  for await (const page of listPages({ sources: sourcesOf('gsi1', keys.listShards(tenant, 'DELIVERIES')), descending: true }, 200)) {
    views.push(...page.map((v) => deliveryView(v as unknown as Delivery)));
    // Enough once the sample is full or reaches past the 24 h (an empty page reaches nowhere).
    if (views.length >= HEALTH_SAMPLE || (views.at(-1)?.created_at ?? since) < since) break;
  }
  return healthFromDeliveries(views, now);
}
