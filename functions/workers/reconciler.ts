import { logger } from '#shared/logging/logger.ts';
import { METRIC } from '#shared/observability/metric-names.ts';
import { countMetric } from '#shared/observability/metrics.ts';
import { reconcileOverdue } from '#shared/queue/outbox-queue.ts';
import type { Reaction } from '#shared/stream/stream-dispatch.ts';
import { replayOverdueStreamWork } from '#shared/stream/stream-work.ts';
import { catalogReactions } from './catalog-indexer.ts';
import { reactions } from './stream-processor.ts';

/**
 * Scheduled every minute: re-sends queue messages whose records are overdue, and replays
 * through both stream consumers' reactions the items whose stream work is overdue (a record
 * skipped after the event source's retries): events, confirmed results and products.
 */
/** What a replay of overdue stream work runs: both stream readers' reactions (here and after a restart of the local runtime). */
export const replayReactions: Reaction[] = [...reactions, ...catalogReactions];

export const handler = async (): Promise<{ resent: number; replayed: number; failed: number }> => {
  const now = new Date();
  const resent = await reconcileOverdue(now);
  const { replayed, failed } = await replayOverdueStreamWork(now, replayReactions);
  if (resent) logger.warn('re-enqueued overdue records', { resent });
  countMetric(METRIC.reconcilerResends, {}, resent + replayed);
  if (replayed || failed) logger.warn('replayed overdue stream work', { replayed, failed });
  return { resent, replayed, failed };
};
