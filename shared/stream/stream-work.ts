import { logger } from '../logging/logger.ts';
import { streamRecoverySeconds, tableName } from '../storage/clients.ts';
import { landed } from '../storage/conditional.ts';
import { dueItems, EVERYTHING_DUE, postponeDue } from '../storage/due-index.ts';
import { DUE_INDEXES, keys, tenantOfKey } from '../storage/keys.ts';
import type { Reaction } from './stream-dispatch.ts';

const STREAM_DUE_PREFIX = 'STREAMDUE#';

const hasStreamDue = (item: Record<string, unknown> | undefined) => typeof item?.gsi2pk === 'string' && item.gsi2pk.startsWith(STREAM_DUE_PREFIX);

/** The due entry an item carries until its stream work is done. */
export const streamDueAttributes = (pk: string, now: Date) => keys.streamDue(pk, new Date(now.getTime() + streamRecoverySeconds() * 1000).toISOString());

/** An item as written: events carry the stream-work entry until their fan-out and reactions are done. */
export const withStreamDue = <T extends object>(item: T, now: Date): T =>
  (item as { entity?: unknown }).entity === 'event' ? { ...item, ...streamDueAttributes((item as unknown as { pk: string }).pk, now) } : item;

/** The stream processor's last reaction: an event whose reactions all succeeded needs no sweep. */
export const streamWorkDone: Reaction = {
  name: 'stream-work-done',
  async handle(change) {
    const item = change.newImage;
    if (change.eventName !== 'INSERT' || item?.entity !== 'event' || !hasStreamDue(item)) return;
    await landed({
      update: {
        TableName: tableName(),
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
        ConditionExpression: 'begins_with(gsi2pk, :prefix)',
        ExpressionAttributeValues: { ':prefix': STREAM_DUE_PREFIX },
      },
    });
  },
};

/**
 * Replays every item whose stream work is due by `dueBy` (by default: overdue now) through
 * `reactions` (the stream processor's own list); returns how many were replayed. An item whose
 * replay fails comes due again, counted from `now`.
 */
export async function replayOverdueStreamWork(now: Date, reactions: readonly Reaction[], dueBy: Date = now): Promise<{ replayed: number; failed: number }> {
  const counts = { replayed: 0, failed: 0 };
  for await (const item of dueItems(DUE_INDEXES.streamWork, dueBy)) {
    const next = new Date(now.getTime() + streamRecoverySeconds() * 1000);
    if (!(await postponeDue(item, next))) continue;
    const change = { eventName: 'INSERT' as const, newImage: { ...item, gsi2sk: next.toISOString() } };
    let current = '';
    try {
      for (const reaction of reactions) {
        current = reaction.name;
        await reaction.handle(change);
      }
      counts.replayed++;
    } catch (error) {
      // Names only: an item may hold personal data.
      logger.error('replay of stream work failed; it comes due again', { reaction: current, entity: String(item.entity), error: (error as Error).name });
      counts.failed++;
    }
  }
  return counts;
}

/** Every item whose stream work is not done yet, identifiers and times only (never its content). */
export async function pendingStreamWork(now = new Date()) {
  const pending: { entity: string; type: string; tenant: string; due_at: string; overdue: boolean }[] = [];
  for await (const item of dueItems(DUE_INDEXES.streamWork, EVERYTHING_DUE, 'pk, entity, event_type, kind, gsi2sk')) {
    const due = String(item.gsi2sk);
    pending.push({
      entity: String(item.entity),
      type: String(item.event_type ?? item.kind),
      tenant: tenantOfKey(String(item.pk)),
      due_at: due,
      overdue: Date.parse(due) <= now.getTime(),
    });
  }
  return pending;
}
