/**
 * Stream work that cannot be dropped. An item whose stream record must be handled (an event
 * to fan out, a page of a reaction job, a confirmed result to write back, a product whose
 * variants to index) carries an entry in the sparse due index until it has been: each stream
 * reader clears the entries of the items it owns once every reaction succeeded, the
 * write-back settles its own, a job moves its own on with each page. Should the record be
 * skipped after the event source's retries (on AWS it then also lands in the stream's
 * on-failure queue), the reconciler finds the entry once overdue and replays the item through
 * both readers' reactions, as if the stream had brought it again; the reactions are
 * idempotent, so a replay of work done is harmless.
 */
import { logger } from '../logging/logger.ts';
import { streamRecoverySeconds, tableName } from '../storage/clients.ts';
import { landed } from '../storage/conditional.ts';
import { dueItems, EVERYTHING_DUE, takeDue } from '../storage/due-index.ts';
import { DUE_INDEXES, hasStreamDue, keys, STREAM_DUE_PREFIX, tenantOfKey } from '../storage/keys.ts';
import type { Reaction } from './stream-dispatch.ts';

/** The due entry an item carries until its stream work is done. */
export const streamDueAttributes = (pk: string, now: Date) => keys.streamDue(pk, new Date(now.getTime() + streamRecoverySeconds() * 1000).toISOString());

/**
 * Items whose stream record starts work that must not be lost if the record is skipped:
 * events (their fan-out) and products (the variant index), whose entries the stream reader
 * that owns them removes, and confirmed results made while the tenant's write-back was enabled
 * (`writeback_state: pending`), which settle their own.
 */
export type StreamWorkOwner = 'stream-processor' | 'catalog-indexer';
const OWNER_OF: Readonly<Record<string, StreamWorkOwner>> = { event: 'stream-processor', order: 'stream-processor', product: 'catalog-indexer' };
/** Orders write their own entry (order-store.ts: their one publication marker); these items get theirs as written. */
const carriesStreamWork = (item: Record<string, unknown>) =>
  (item.entity !== 'order' && OWNER_OF[String(item.entity)] !== undefined) || (item.entity === 'result' && item.writeback_state === 'pending');

/** An item as written: with its stream-work due entry when its record starts such work. */
export const withStreamDue = <T extends object>(item: T, now: Date): T =>
  carriesStreamWork(item as Record<string, unknown>) ? { ...item, ...streamDueAttributes((item as unknown as { pk: string }).pk, now) } : item;

/** What an item keeps once its stream work is done: a due entry for other work (an order scheduled for later: its call), and watermarks that only grow. */
export interface AfterStreamWork {
  due?: { gsi2pk: string; gsi2sk: string } | undefined;
  watermarks?: Record<string, number>;
}

/**
 * Removes an item's stream-work due entry once its work is done (or replaces it with the due
 * entry the item keeps for other work) and raises its watermarks, unless a later write gave it
 * a new entry (that write's record brings its own work): then only the watermarks are raised,
 * where they are lower. Unstamped: an order's own writer stamps the order.
 */
export async function markStreamWorkDone(item: Record<string, unknown>, after: AfterStreamWork = {}) {
  const { due, watermarks = {} } = after;
  const marks = Object.entries(watermarks).map(([name, value], i) => ({ name, value, n: `#w${i}`, v: `:w${i}` }));
  const names = marks.length ? { ExpressionAttributeNames: Object.fromEntries(marks.map((m) => [m.n, m.name])) } : {};
  const values = Object.fromEntries(marks.map((m) => [m.v, m.value]));
  const sets = [...(due ? ['gsi2pk = :pk', 'gsi2sk = :sk'] : []), ...marks.map((m) => `${m.n} = ${m.v}`)];
  const update = {
    TableName: tableName(),
    Key: { pk: item.pk, sk: item.sk },
    UpdateExpression: `${sets.length ? `SET ${sets.join(', ')}` : ''}${due ? '' : ' REMOVE gsi2pk, gsi2sk'}`.trim(),
    ConditionExpression: 'gsi2sk = :seen AND begins_with(gsi2pk, :prefix)',
    ...names,
    ExpressionAttributeValues: { ':seen': item.gsi2sk, ':prefix': STREAM_DUE_PREFIX, ...(due ? { ':pk': due.gsi2pk, ':sk': due.gsi2sk } : {}), ...values },
  };
  if ((await landed({ update }, { stamp: false })) || marks.length === 0) return;
  const raise = {
    TableName: tableName(),
    Key: { pk: item.pk, sk: item.sk },
    UpdateExpression: `SET ${marks.map((m) => `${m.n} = ${m.v}`).join(', ')}`,
    ConditionExpression: ['attribute_exists(pk)', ...marks.map((m) => `(attribute_not_exists(${m.n}) OR ${m.n} < ${m.v})`)].join(' AND '),
    ...names,
    ExpressionAttributeValues: values,
  };
  await landed({ update: raise }, { stamp: false });
}

/** What an item of an entity keeps once its stream work is done (stream-processor: an order's call due entry and its publication's watermark). */
export type AfterStreamWorkOf = Readonly<Record<string, (item: Record<string, unknown>) => AfterStreamWork>>;

/** A stream reader's last reaction: the items it owns whose reactions all succeeded need no sweep. */
export const streamWorkDone = (owner: StreamWorkOwner, afterOf: AfterStreamWorkOf = {}): Reaction => ({
  name: `${owner}-work-done`,
  async handle(change) {
    const item = change.newImage;
    if (change.eventName === 'REMOVE' || !item || !hasStreamDue(item) || OWNER_OF[String(item.entity)] !== owner) return;
    await markStreamWorkDone(item, afterOf[String(item.entity)]?.(item));
  },
});

/**
 * Replays every item whose stream work is due by `dueBy` (by default: overdue now) through
 * `reactions` (the stream processor's own list); returns how many were replayed. An item whose
 * replay fails comes due again, counted from `now`.
 */
export async function replayOverdueStreamWork(now: Date, reactions: readonly Reaction[], dueBy: Date = now): Promise<{ replayed: number; failed: number }> {
  const counts = { replayed: 0, failed: 0 };
  for await (const item of dueItems(DUE_INDEXES.streamWork, dueBy)) {
    const next = new Date(now.getTime() + streamRecoverySeconds() * 1000);
    const whole = await takeDue(item, next);
    if (!whole) continue;
    const change = { eventName: 'INSERT' as const, newImage: whole };
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
      type: String(item.event_type ?? item.kind ?? (item.entity === 'order' ? 'publication' : '')),
      tenant: tenantOfKey(String(item.pk)),
      due_at: due,
      overdue: Date.parse(due) <= now.getTime(),
    });
  }
  return pending;
}
