/** The test event: a synthetic status event (`test: true`) sent through the real outbox and delivery path. */
import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../errors.ts';
import { putEventOnce } from '../events/event-store.ts';
import { eventItem } from '../events/outbox.ts';
import { keys } from '../storage/keys.ts';
import { deliveryIdFor } from './payload.ts';
import { admitWebhookSend } from './send-limit.ts';
import { readWebhookSubscription } from './subscription-store.ts';

/** Sends a test status event (`test: true`) through the outbox and delivery path; answers the delivery to watch. */
export async function sendTestEvent(tenant: string, cause: { correlationId: string; requestId: string; now: Date }) {
  if (!(await readWebhookSubscription(tenant))) throw new NotFoundError('No webhook subscription yet: create it with PUT /webhook-subscription.');
  await admitWebhookSend(tenant, cause.now);
  const id = randomUUID();
  const event = eventItem(keys.testEvent(tenant, id), {
    event_type: 'commerce.order.status_changed.v1',
    tenant,
    external_order_id: `test-${id.slice(0, 8)}`,
    correlation_id: cause.correlationId,
    causation_id: cause.requestId,
    data: { previous_state: 'received', processing_state: 'validated', reason: null },
    test: true,
    occurredAt: cause.now,
  });
  await putEventOnce(event);
  return { event_id: event.event_id, delivery_id: deliveryIdFor(event.event_id), status: 'queued' as const };
}
