import { reconcileOverdue } from '#shared/queue/outbox-queue.ts';
import { logger } from '#shared/logging/logger.ts';

/** Scheduled every minute: re-sends queue messages whose records are overdue. */
export const handler = async (): Promise<{ resent: number }> => {
  const resent = await reconcileOverdue(new Date());
  if (resent) logger.warn('re-enqueued overdue records', { resent });
  return { resent };
};
