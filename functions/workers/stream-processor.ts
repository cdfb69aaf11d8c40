import type { DynamoDBStreamEvent } from 'aws-lambda';
import { fillPath } from '#shared/api/routes.ts';
import { domainReactions } from '#shared/orders/reactions.ts';
import { dispatchStream, type Reaction } from '#shared/stream/stream-dispatch.ts';
import { webhookFanOut } from '#shared/webhooks/fan-out.ts';
import { config } from '../composition-root.ts';
import { sandboxStore } from '#shared/calls/writeback.ts';
import { readProduct } from '#shared/catalog/product-store.ts';
import { putEventOnce } from '#shared/events/event-store.ts';
import { forgetResultScenario, orderIdsWhere } from '#shared/orders/order-store.ts';
import type { ReactionPorts } from '#shared/orders/reactions.ts';
import { processing } from '../order-processing.ts';
import { routeById } from '../routes.ts';

const getOrder = routeById('getOrder');

const reactionPorts: ReactionPorts = {
  processing,
  products: { read: readProduct },
  orderIdsWhere,
  store: sandboxStore,
  putEventOnce,
  forgetResultScenario,
};

/** The reactions to table changes: the domain's, and the webhook fan-out of outbox events. */
export const reactions: Reaction[] = [
  ...domainReactions(reactionPorts),
  webhookFanOut({ subscriptionCacheSeconds: config.authCacheSeconds, orderReference: (id) => fillPath(getOrder, { externalOrderId: id }) }),
];

export const handler = (event: DynamoDBStreamEvent) => dispatchStream(event, reactions);
