import { defineOperation } from '#shared/http/operation.ts';
import { listQuery, pageOf } from '#shared/http/page-query.ts';
import { listDeliveries } from '#shared/webhooks/delivery-list.ts';
import { DeliverySchema, deliveryListFilters } from '#shared/webhooks/webhook-schemas.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'listWebhookDeliveries',
  description:
    'Deliveries newest first, optionally by `status` (queued, delivering, retrying, delivered, dead_lettered), with the last attempt of each. ' +
    'A queued or retrying delivery shows `delivering` while an attempt is under way. A page filtered by status may hold fewer than `limit` entries ' +
    'while `next_cursor` is not null: follow the cursor until it is null.',
  query: listQuery(deliveryListFilters),
  responses: { 200: { description: 'A page of deliveries', schema: pageOf(DeliverySchema) } },
});

export const handler = readHandler(contract, async ({ principal, query }) => ({
  status: 200,
  body: await listDeliveries(principal.tenant, query.status, { limit: query.limit, cursor: query.cursor }),
}));
