import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { putSubscription } from '#shared/webhooks/subscription-store.ts';

/**
 * A new tenant subscribed to `url` and one queued delivery of it, written directly with no
 * queue message (the shared stack's own sender must not take it); `body` is its message.
 */
export async function queuedDelivery(url: string, attempts = 0) {
  const tenant = `t-${randomUUID().slice(0, 8)}`;
  await putSubscription(tenant, { url, event_types: ['commerce.order.status_changed.v1'], enabled: true }, new Date());
  const id = `dlv_${randomUUID().replaceAll('-', '')}`;
  const at = new Date().toISOString();
  const item = {
    ...keys.delivery(tenant, id),
    entity: 'delivery',
    tenant,
    delivery_id: id,
    event_id: `evt_${id}`,
    event_type: 'commerce.order.status_changed.v1',
    external_order_id: 'o-1',
    status: 'queued',
    attempts,
    created_at: at,
    delivered_at: null,
    next_attempt_at: at,
    replay_of: null,
    last_attempt: null,
    payload: '{"x":1}',
    list_view: { status: 'queued' },
  };
  await tableClient().send(new PutCommand({ TableName: tableName(), Item: item }));
  return { tenant, id, body: JSON.stringify({ tenant, delivery_id: id }) };
}
