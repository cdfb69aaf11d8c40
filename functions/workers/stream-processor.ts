import type { DynamoDBStreamEvent } from 'aws-lambda';
import { fillPath } from '#shared/api/routes.ts';
import { claimWriteBackAttempt, settleWriteBack } from '#shared/calls/writeback-state.ts';
import { readProduct } from '#shared/catalog/product-store.ts';
import { putEventOnce } from '#shared/events/event-store.ts';
import { businessMetrics } from '#shared/observability/business-metrics.ts';
import { advanceJob } from '#shared/orders/order-jobs.ts';
import { publishedThrough, readOrderRecords } from '#shared/orders/order-records.ts';
import { afterPublication, forgetResultScenario, orderIdsPage } from '#shared/orders/order-store.ts';
import type { ReactionPorts } from '#shared/orders/reactions.ts';
import { domainReactions } from '#shared/orders/reactions.ts';
import { dispatchStream, type Reaction } from '#shared/stream/stream-dispatch.ts';
import { streamWorkDone } from '#shared/stream/stream-work.ts';
import { writebackSecrets } from '#shared/tenants/writeback-secret.ts';
import { publicationOfRecords, webhookFanOut } from '#shared/webhooks/fan-out.ts';
import { systemResolver } from '#shared/webhooks/sender.ts';
import { postWriteBack, tenantStore } from '#shared/webhooks/store-writeback.ts';
import { config } from '../composition-root.ts';
import { processing } from '../order-processing.ts';
import { routeById } from '../routes.ts';

const getOrder = routeById('getOrder');

const reactionPorts: ReactionPorts = {
  processing,
  products: { read: readProduct },
  orderIdsPage,
  jobs: { advance: advanceJob },
  store: tenantStore({
    tenantConfigOf: processing.ports.tenantConfigOf,
    secretsOf: (tenant) => writebackSecrets(tenant),
    post: postWriteBack,
    settings: { allowPrivateUrls: config.webhookAllowPrivateUrls, timeoutScale: config.webhookTimeoutScale, resolve: systemResolver },
  }),
  writeBacks: { claim: claimWriteBackAttempt, settle: settleWriteBack },
  putEventOnce,
  forgetResultScenario,
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
  businessMetrics(publicationOf),
  streamWorkDone('stream-processor', { order: afterPublication }),
];

export const handler = (event: DynamoDBStreamEvent) => dispatchStream(event, reactions);
