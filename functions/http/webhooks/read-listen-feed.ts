import { defineOperation } from '#shared/http/operation.ts';
import { LISTEN_PAGE, LISTEN_SESSION_SECONDS, readListenFeed } from '#shared/webhooks/listen-sessions.ts';
import { ListenFeedQuery, ListenFeedSchema, ListenSessionParams } from '#shared/webhooks/webhook-schemas.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'readListenFeed',
  description:
    `A listen session's events in the order they were fed, up to ${LISTEN_PAGE} per read, each with the exact payload bytes a delivery carries; pass \`next_after\` as \`after\` to read on. ` +
    `Entries show about 2 s after they are fed (so none is passed over) and an event can come twice (drop an \`event_id\` seen before). ` +
    `Each read renews the session for ${LISTEN_SESSION_SECONDS} s; an ended or unknown session is \`resource_not_found\` (start a new one).`,
  params: ListenSessionParams,
  query: ListenFeedQuery,
  responses: { 200: { description: 'Feed entries after `after`', schema: ListenFeedSchema } },
});

export const handler = readHandler(contract, async ({ principal, params, query, now }) => ({
  status: 200,
  body: await readListenFeed(principal.tenant, params.listenSessionId, query.after, now),
}));
