/**
 * Counts what happened to orders and calls from the events the stream carries: orders by
 * final state and outcome, call attempts by disposition (each also a log line). Test events are not counted. A
 * record delivered twice counts twice (metrics are at least once, like the stream).
 */
import { logger } from '../logging/logger.ts';
import type { Reaction } from '../stream/stream-dispatch.ts';
import { METRIC } from './metric-names.ts';
import { countMetric } from './metrics.ts';

export const businessMetrics: Reaction = {
  name: 'business-metrics',
  async handle(change) {
    const image = change.newImage;
    if (change.eventName !== 'INSERT' || image?.entity !== 'event' || image.test === true) return;
    const data = (image.data ?? {}) as { processing_state?: string; call_disposition?: string; result?: { business_outcome?: string } };
    switch (image.event_type) {
      case 'commerce.order.result_ready.v1':
        return countMetric(METRIC.ordersFinal, { state: 'completed', business_outcome: String(data.result?.business_outcome ?? 'none') });
      case 'commerce.order.status_changed.v1':
        if (data.processing_state === 'cancelled' || data.processing_state === 'rejected') {
          countMetric(METRIC.ordersFinal, { state: data.processing_state, business_outcome: 'none' });
        }
        return;
      case 'commerce.call.attempt_completed.v1':
        // One line per call attempt, as there is one per request and per webhook attempt: ids and the disposition only.
        logger.info('call attempt', {
          tenant: image.tenant,
          external_order_id: image.external_order_id,
          correlation_id: image.correlation_id,
          attempt: (data as { attempt?: number }).attempt,
          call_disposition: data.call_disposition,
        });
        return countMetric(METRIC.callAttempts, { disposition: String(data.call_disposition) });
    }
  },
};
