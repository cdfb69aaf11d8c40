/**
 * Counts what happened to orders and calls from the events each order record publishes:
 * orders by final state and outcome, call attempts by disposition (each also a log line). A
 * record delivered twice counts twice (metrics are at least once, like the stream).
 */

import type { EventRecord } from '../events/outbox.ts';
import { logger } from '../logging/logger.ts';
import { METRIC } from '../observability/metric-names.ts';
import { countMetric } from '../observability/metrics.ts';
import type { Reaction } from '../stream/stream-dispatch.ts';
import type { PublicationOf } from './order-publication.ts';

/** An order record's events that are its own (a marker's replay of earlier ones was counted when they were new). */
export const businessMetrics = (publicationOf: PublicationOf): Reaction => ({
  name: 'business-metrics',
  async handle(change) {
    if (change.eventName === 'REMOVE' || change.newImage?.entity !== 'order') return;
    for (const event of (await publicationOf(change)).fresh) count(event);
  },
});

function count(event: EventRecord) {
  const data = event.data as {
    processing_state?: string;
    call_disposition?: string;
    attempt?: number;
    result?: { business_outcome?: string; final_order_snapshot?: { reason?: string | null } };
  };
  switch (event.event_type) {
    case 'commerce.order.result_ready.v1':
      // A destination the platform refused is the deployment's to fix (its allowlist), not the customer's: counted apart.
      if (data.result?.final_order_snapshot?.reason === 'destination_not_allowed') countMetric(METRIC.dialsRefused, {});
      return countMetric(METRIC.ordersFinal, { state: 'completed', business_outcome: String(data.result?.business_outcome ?? 'none') });
    case 'commerce.order.status_changed.v1':
      if (data.processing_state === 'cancelled' || data.processing_state === 'rejected') {
        countMetric(METRIC.ordersFinal, { state: data.processing_state, business_outcome: 'none' });
      }
      return;
    case 'commerce.call.attempt_completed.v1':
      // One line per call attempt, as there is one per request and per webhook attempt: the disposition and
      // opaque ids only. The order is named by its correlation id (in its every event and result), never by the partner's id.
      logger.info('call attempt', {
        tenant: event.tenant,
        correlation_id: event.correlation_id,
        attempt: data.attempt,
        call_disposition: data.call_disposition,
      });
      return countMetric(METRIC.callAttempts, { disposition: String(data.call_disposition) });
  }
}
