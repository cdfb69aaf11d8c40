/**
 * After a restart on kept data, in the reconciler's own thread and under its role: every record
 * that waits for a queue message gets it again (a due entry's message may have been on its way
 * when the run was killed), and stream work the killed run left pending is done now rather than
 * when the reconciler finds it overdue (consumers and reactions are idempotent).
 */
import { replayReactions } from '#functions/workers/reconciler.ts';
import { reconcileOverdue, sendToWebhookQueue } from '#shared/queue/outbox-queue.ts';
import { EVERYTHING_DUE } from '#shared/storage/due-index.ts';
import { replayOverdueStreamWork } from '#shared/stream/stream-work.ts';

export async function reconcileAfterRestart(): Promise<{ resent: number; replayed: number }> {
  const resent = await reconcileOverdue(new Date(), sendToWebhookQueue, EVERYTHING_DUE);
  const { replayed } = await replayOverdueStreamWork(new Date(), replayReactions, EVERYTHING_DUE);
  return { resent, replayed };
}
