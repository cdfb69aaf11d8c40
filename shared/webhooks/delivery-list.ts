/** The tenant's deliveries as partners read them: the list (newest first) and the subscription's health. */
import { keys } from '../storage/keys.ts';
import { listPage, paginate, sourcesOf } from '../storage/pagination.ts';
import { HEALTH_SAMPLE, healthFromDeliveries, type WebhookHealth } from './health.ts';
import type { Delivery, DeliveryStatus } from './webhook-schemas.ts';

export function listDeliveries(tenant: string, status: DeliveryStatus | undefined, page: { limit: number; cursor?: string | undefined }) {
  return paginate({ tenant, list: 'webhook-deliveries', filters: { status } }, page, {
    // A status is a partition of its own: the filtered list reads only deliveries in it.
    sources: status ? sourcesOf('gsi3', keys.facetShards(tenant, 'DELIVERIES', [status])) : sourcesOf('gsi1', keys.listShards(tenant, 'DELIVERIES')),
    descending: true,
  });
}

/** The subscription's health from its newest deliveries (at most the last 1,000, within 24 h). */
export async function deliveryHealth(tenant: string, now: Date): Promise<WebhookHealth> {
  const views: Delivery[] = [];
  let after: string | undefined;
  const since = new Date(now.getTime() - 24 * 3600_000).toISOString();
  do {
    const page = await listPage({ sources: sourcesOf('gsi1', keys.listShards(tenant, 'DELIVERIES')), limit: 200, after, descending: true });
    views.push(...(page.views as unknown as Delivery[]));
    after = page.last;
  } while (after && views.length < HEALTH_SAMPLE && views.at(-1)!.created_at >= since);
  return healthFromDeliveries(views, now);
}
