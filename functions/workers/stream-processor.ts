import type { DynamoDBStreamEvent } from 'aws-lambda';
import { fillPath } from '#shared/api/routes.ts';
import { readProduct } from '#shared/catalog/product-store.ts';
import { putEventOnce } from '#shared/events/event-store.ts';
import { advanceJob } from '#shared/jobs/reaction-jobs.ts';
import { businessMetrics } from '#shared/orders/business-metrics.ts';
import { publicationOfRecords } from '#shared/orders/order-publication.ts';
import { publishedThrough, readOrderRecords } from '#shared/orders/order-records.ts';
import { afterPublication, forgetResultScenario, orderIdsPage } from '#shared/orders/order-store.ts';
import type { ReactionPorts } from '#shared/orders/reactions.ts';
import { domainReactions } from '#shared/orders/reactions.ts';
import { dispatchStream, type Reaction } from '#shared/stream/stream-dispatch.ts';
import { streamWorkDone } from '#shared/stream/stream-work.ts';
import { webhookFanOut } from '#shared/webhooks/fan-out.ts';
import { systemResolver } from '#shared/webhooks/sender.ts';
import { postWriteBack, tenantStore } from '#shared/writeback/store-endpoint.ts';
import { type WriteBackPorts, writeBackReaction } from '#shared/writeback/writeback-reaction.ts';
import { writebackSecrets } from '#shared/writeback/writeback-secret.ts';
import { claimWriteBackAttempt, settleWriteBack } from '#shared/writeback/writeback-state.ts';
import { config } from '../composition-root.ts';
import { processing } from '../order-processing.ts';
import { routeById } from '../routes.ts';

const getOrder = routeById('getOrder');

const reactionPorts: ReactionPorts = {
  processing,
  products: { read: readProduct },
  orderIdsPage,
  jobs: { advance: advanceJob },
  forgetResultScenario,
};

const writeBackPorts: WriteBackPorts = {
  tenantConfigOf: processing.ports.tenantConfigOf,
  orders: processing.ports.orders,
  store: tenantStore({
    secretsOf: (tenant) => writebackSecrets(tenant),
    post: postWriteBack,
    settings: { allowPrivateUrls: config.webhookAllowPrivateUrls, timeoutScale: config.webhookTimeoutScale, resolve: systemResolver },
  }),
  attempts: { claim: claimWriteBackAttempt, settle: settleWriteBack },
  putEventOnce,
};

/**
 * The reactions to table changes: the webhook fan-out of the orders' events first (an order's events
 * go out before its next step, which may be a whole call), the domain's, the business metrics,
 * and last the note that an item's stream work is done (the reconciler replays it otherwise).
 */
const publicationOf = publicationOfRecords({ records: readOrderRecords, publishedThrough });
export const reactions: Reaction[] = [
  webhookFanOut({
    subscriptionCacheSeconds: config.authCacheSeconds,
    orderReference: (id) => fillPath(getOrder, { externalOrderId: id }),
    publicationOf,
  }),
  ...domainReactions(reactionPorts),
  writeBackReaction(writeBackPorts),
  businessMetrics(publicationOf),
  streamWorkDone('stream-processor', { order: afterPublication }),
];

export const handler = (event: DynamoDBStreamEvent) => dispatchStream(event, reactions);
