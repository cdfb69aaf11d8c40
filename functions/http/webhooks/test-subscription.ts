import { randomUUID } from 'node:crypto';
import { NotFoundError } from '#shared/errors.ts';
import { putEventOnce } from '#shared/events/event-store.ts';
import { eventItem } from '#shared/events/outbox.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { keys } from '#shared/storage/keys.ts';
import { deliveryIdFor } from '#shared/webhooks/payload.ts';
import { admitWebhookSend, WEBHOOK_SEND_LIMIT_TEXT } from '#shared/webhooks/send-limit.ts';
import { readWebhookSubscription } from '#shared/webhooks/subscription-store.ts';
import { TestResultSchema } from '#shared/webhooks/webhook-schemas.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'testWebhookSubscription',
  description:
    'Sends a test event (`test: true`, type `commerce.order.status_changed.v1`, a synthetic `external_order_id`) through the same outbox and delivery path, ' +
    'whatever the allowlist and `enabled` say. Answers at once with the delivery to watch in GET /webhook-deliveries. ' +
    WEBHOOK_SEND_LIMIT_TEXT,
  responses: { 202: { description: 'Queued', schema: TestResultSchema } },
});

export const handler = mutationHandler(contract, async ({ principal, correlationId, requestId, now }) => {
  if (!(await readWebhookSubscription(principal.tenant))) throw new NotFoundError('No webhook subscription yet: create it with PUT /webhook-subscription.');
  await admitWebhookSend(principal.tenant, now);
  const id = randomUUID();
  const event = eventItem(keys.testEvent(principal.tenant, id), {
    event_type: 'commerce.order.status_changed.v1',
    tenant: principal.tenant,
    external_order_id: `test-${id.slice(0, 8)}`,
    correlation_id: correlationId,
    causation_id: requestId,
    data: { previous_state: 'received', processing_state: 'validated', reason: null },
    test: true,
    occurredAt: now,
  });
  await putEventOnce(event);
  return { status: 202, body: { event_id: event.event_id, delivery_id: deliveryIdFor(event.event_id), status: 'queued' as const } };
});
