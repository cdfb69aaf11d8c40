/** The test event: a synthetic status event (`test: true`) sent through the real outbox and delivery path. */
import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../errors.ts';
import { putEventOnce } from '../events/event-store.ts';
import { eventItem } from '../events/outbox.ts';
import { keys } from '../storage/keys.ts';
import { liveListenSessions } from './listen-sessions.ts';
import { deliveryIdFor } from './payload.ts';
import { admitWebhookSend } from './send-limit.ts';
import { readWebhookSubscription } from './subscription-store.ts';

/**
 * Sends a test status event (`test: true`) through the outbox and delivery path; answers the
 * delivery to watch. With no subscription, the event still goes to the tenant's live listen
 * sessions (what `sandbox listen` forwards), and there is no delivery to watch (`delivery_id`
 * null); with neither, there is nowhere to send it.
 */
export async function sendTestEvent(tenant: string, cause: { correlationId: string; requestId: string; now: Date }) {
  const subscribed = Boolean(await readWebhookSubscription(tenant));
  if (!subscribed && (await liveListenSessions(tenant, cause.now, { consistent: true })).length === 0) {
    throw new NotFoundError('No webhook subscription and no live listen session: create one with PUT /webhook-subscription, or start a listen session.');
  }
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
  return { event_id: event.event_id, delivery_id: subscribed ? deliveryIdFor(event.event_id) : null, status: 'queued' as const };
}
