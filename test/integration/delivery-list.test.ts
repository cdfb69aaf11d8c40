/**
 * The delivery log by status, as a partner filters it: `delivering` is an attempt's lease on a
 * queued or retrying delivery (shown, not stored), `delivered` is read from the list itself,
 * the other statuses from their index partitions. Each delivery appears under the status it shows.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { listDeliveries } from '#shared/webhooks/delivery-list.ts';
import { claimDelivery, recordDeliveryAttempt } from '#shared/webhooks/delivery-store.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from '#shared/webhooks/webhook-schemas.ts';
import { writeDelivery } from '../support/deliveries.ts';

const outcome = (statusCode: number) => ({
  at: new Date(),
  statusCode,
  error: statusCode < 300 ? null : `http_${statusCode}`,
  latencyMs: 3,
  requestExcerpt: '',
  responseExcerpt: '',
});

async function claimed(tenant: string, id: string) {
  const claim = await claimDelivery(tenant, id, new Date(), 60);
  if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
  return claim;
}

describe('the delivery log by status', () => {
  it('lists each delivery under the status it shows, and all of them unfiltered', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const ids = Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, `dlv_${s}_${randomUUID().slice(0, 8)}`])) as Record<DeliveryStatus, string>;
    // Written as the store writes them, with no queue message: the shared stack's sender must not take them.
    for (const status of DELIVERY_STATUSES) await writeDelivery(tenant, ids[status], { status: status === 'dead_lettered' ? status : 'queued' });
    await claimed(tenant, ids.delivering);
    const toDeliver = await claimed(tenant, ids.delivered);
    expect((await recordDeliveryAttempt(toDeliver.delivery, outcome(200), toDeliver.lease)).status).toBe('delivered');
    const toRetry = await claimed(tenant, ids.retrying);
    expect((await recordDeliveryAttempt(toRetry.delivery, outcome(500), toRetry.lease)).status).toBe('retrying');

    const listed = async (status?: DeliveryStatus) => (await listDeliveries(tenant, status, { limit: 50 })).data.map((d) => [d.delivery_id, d.status] as const);
    for (const status of DELIVERY_STATUSES) expect(await listed(status)).toEqual([[ids[status], status]]);
    expect(new Map(await listed())).toEqual(new Map(DELIVERY_STATUSES.map((s) => [ids[s], s])));
  });

  it('shows a delivery whose attempt ended without a record (its lease passed) as queued again', async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const id = `dlv_${randomUUID().slice(0, 8)}`;
    await writeDelivery(tenant, id);
    const claim = await claimDelivery(tenant, id, new Date(), 0.05);
    expect(claim.kind).toBe('claimed');
    await new Promise((r) => setTimeout(r, 100));
    expect((await listDeliveries(tenant, 'queued', { limit: 50 })).data.map((d) => d.delivery_id)).toEqual([id]);
    expect((await listDeliveries(tenant, 'delivering', { limit: 50 })).data).toEqual([]);
  });
});
