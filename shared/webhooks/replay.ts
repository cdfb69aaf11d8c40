/** POST /webhook-deliveries/{id}/replay: a new delivery of the same immutable event, same event_id and payload bytes. */
import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../errors.ts';
import { enqueueDelivery, readDelivery, readDeliveryContent } from './delivery-store.ts';
import { deliveryIdFor } from './payload.ts';

export async function replayDelivery(tenant: string, originalId: string, now: Date) {
  const original = await readDelivery(tenant, originalId);
  const content = original && (await readDeliveryContent(original.pk));
  if (!original || !content) throw new NotFoundError(`No webhook delivery ${originalId}.`);
  const deliveryId = deliveryIdFor(original.event_id, randomUUID());
  await enqueueDelivery(tenant, deliveryId, { ...original, ...content }, content.payload, original.delivery_id, now);
  return { delivery_id: deliveryId, replay_of: original.delivery_id, event_id: original.event_id, status: 'queued' as const };
}
