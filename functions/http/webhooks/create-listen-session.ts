import { EVENT_TYPES } from '#shared/events/event-types.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { createListenSession, LISTEN_SESSION_SECONDS, LISTEN_SESSIONS_PER_TENANT } from '#shared/webhooks/listen-sessions.ts';
import { ListenSessionRequestSchema, ListenSessionSchema } from '#shared/webhooks/webhook-schemas.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'createListenSession',
  description:
    "Starts a listen session (an extension of the contract, for `sandbox listen` and tools like it): from about 2 s on, every event of the chosen types is also written to the session's feed, " +
    'whatever the webhook subscription says, and the subscription is left as it is. Read the feed with GET /webhook-listen-sessions/{listenSessionId}/events; each read renews the session, ' +
    `which ends by itself ${LISTEN_SESSION_SECONDS} s after its last read. At most ${LISTEN_SESSIONS_PER_TENANT} live sessions per tenant (\`limit_reached\` past that).`,
  body: ListenSessionRequestSchema,
  problems: ['limit_reached'],
  responses: { 201: { description: 'The session', schema: ListenSessionSchema } },
});

export const handler = mutationHandler(contract, async ({ principal, body, now }) => ({
  status: 201,
  body: await createListenSession(principal.tenant, body.event_types ?? [...EVENT_TYPES], now),
}));
