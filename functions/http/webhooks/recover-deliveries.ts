import { defineOperation } from '#shared/http/operation.ts';
import { recoverDeliveries } from '#shared/webhooks/delivery-ops.ts';
import { admitWebhookSend, WEBHOOK_SEND_LIMIT_TEXT } from '#shared/webhooks/send-limit.ts';
import { RECOVER_PAGE, RecoverRequestSchema, RecoverResultSchema } from '#shared/webhooks/webhook-schemas.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'recoverWebhookDeliveries',
  description:
    'After an outage of your endpoint: re-sends every dead-lettered delivery created at or after `since` that was not recovered yet, each as a new delivery ' +
    '(`replay_of` the original) of the same event (same `event_id` and payload bytes); each original stays `dead_lettered` and shows `recovered_by`. ' +
    `At most ${RECOVER_PAGE} per call: \`more\` says to call again (the same \`since\` picks up the rest). Each re-send counts as a replay. ${WEBHOOK_SEND_LIMIT_TEXT} ` +
    'Past the limit after some were re-sent, the answer lists those with `more: true`.',
  body: RecoverRequestSchema,
  responses: { 202: { description: 'Re-sent (queued)', schema: RecoverResultSchema } },
});

export const handler = mutationHandler(contract, async ({ principal, body, now }) => ({
  status: 202,
  body: await recoverDeliveries(principal.tenant, new Date(body.since), now, { limit: RECOVER_PAGE, admit: () => admitWebhookSend(principal.tenant, now) }),
}));
