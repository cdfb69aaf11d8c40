import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { runtimeConfig } from '#shared/config/runtime.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { deliveryItem, type StoredDelivery } from '#shared/webhooks/delivery-item.ts';
import { deliveryPayloadItem } from '#shared/webhooks/delivery-store.ts';
import { putSubscription } from '#shared/webhooks/subscription-store.ts';

/**
 * A new tenant subscribed to `url` and one queued delivery of it, written directly with no
 * queue message (the shared stack's own sender must not take it); `body` is its message.
 */
export async function queuedDelivery(url: string, attempts = 0) {
  const tenant = `t-${randomUUID().slice(0, 8)}`;
  await putSubscription(tenant, { url, event_types: ['commerce.order.status_changed.v1'], enabled: true }, new Date());
  const id = `dlv_${randomUUID().replaceAll('-', '')}`;
  await writeDelivery(tenant, id, { attempts });
  return { tenant, id, body: JSON.stringify({ tenant, delivery_id: id }) };
}

/** A delivery and its payload as the store writes them, with no queue message. */
export async function writeDelivery(tenant: string, id: string, options: { attempts?: number; status?: 'queued' | 'dead_lettered' } = {}) {
  const at = new Date().toISOString();
  const { pk, sk } = keys.delivery(tenant, id);
  const status = options.status ?? 'queued';
  const delivery: StoredDelivery = {
    pk,
    sk,
    tenant,
    delivery_id: id,
    event_id: `evt_${id}`,
    event_type: 'commerce.order.status_changed.v1',
    status,
    attempts: options.attempts ?? 0,
    created_at: at,
    delivered_at: null,
    next_attempt_at: status === 'queued' ? at : null,
    replay_of: null,
    last_attempt: null,
  };
  await tableClient().send(new PutCommand({ TableName: tableName(), Item: deliveryPayloadItem(pk, { payload: '{"x":1}' }) }));
  await tableClient().send(new PutCommand({ TableName: tableName(), Item: deliveryItem(delivery) }));
}

/** Runs `work` with the webhook queue unreachable: its URL names a queue the emulator does not have. */
export async function withQueueMissing<T>(work: () => Promise<T>): Promise<T> {
  const config = runtimeConfig() as { webhookQueueUrl: string };
  const queueUrl = config.webhookQueueUrl;
  config.webhookQueueUrl = queueUrl.replace(/[^/]+$/, 'no-such-queue');
  try {
    return await work();
  } finally {
    config.webhookQueueUrl = queueUrl;
  }
}
