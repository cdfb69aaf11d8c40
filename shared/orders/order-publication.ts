/**
 * An order publishes its own events: each of its stream records the events its write produced
 * and, when the order carries its publication marker (order-store.ts), every event it has,
 * those a skipped record missed included. The webhook fan-out and the business metrics read
 * the same publication of each record.
 */
import type { EventRecord } from '../events/outbox.ts';
import { hasStreamDue } from '../storage/keys.ts';
import type { StreamChange } from '../stream/stream-dispatch.ts';
import { entryRevision, eventsOf, mergedLog, needsRecords, type OrderRecords, type PublicationSpan } from './order-log.ts';

/** What a publication reads of an order besides its stream record (order-records.ts). */
export interface OrderReads {
  /** Its attempts and result and, given a span, the stretches of its log moved out of it that the span needs. */
  records(orderPk: string, options: { history: PublicationSpan | null }): Promise<OrderRecords & { history: string[] }>;
  /** The revision its events are published through, as the order says now (a writer's image may carry an older one). */
  publishedThrough(orderPk: string): Promise<number>;
}

const NO_RECORDS: OrderRecords & { history: string[] } = { attempts: new Map(), result: undefined, history: [] };

/**
 * What an order's stream record publishes: the events its write produced (the log's entries
 * after the old image's revision) and, with the publication marker, those since the last
 * publication that completed (`published`, read from the order as it is now), which a skipped
 * record may have missed. The order's attempts and result are read only when an entry names
 * them, the stretches of its log moved out of it only when those reach back that far.
 */
export async function orderPublication(change: StreamChange, reads: OrderReads): Promise<{ fresh: EventRecord[]; earlier: EventRecord[] }> {
  const image = change.newImage!;
  const before = change.oldImage?.entity === 'order' ? Number(change.oldImage.revision) : 0;
  const log = (image.log as string[] | undefined) ?? [];
  const marked = hasStreamDue(image);
  const published = marked ? Math.max(Number(image.published ?? 0), await reads.publishedThrough(String(image.pk))) : 0;
  // A replay (the reconciler's, no old image) publishes what its marker covers, as the record it stands for would have.
  const after = !marked ? before : change.oldImage ? Math.min(before, published) : published;
  if (!log.some((entry) => entryRevision(entry) > after)) return { fresh: [], earlier: [] };
  // The order's own log starts with a state change: from there on it needs nothing moved out.
  const history = log.length === 0 || after < entryRevision(log[0]!);
  // A record publishes what its own write reached: the stretches moved out since (a record
  // handled after later changes of its order reads them now) are later records' to publish.
  const through = Number(image.revision);
  const loaded = history || needsRecords(log, after) ? await reads.records(String(image.pk), { history: history ? { after, through } : null }) : NO_RECORDS;
  const identity = {
    pk: String(image.pk),
    tenant: String(image.tenant),
    external_order_id: String(image.external_order_id),
    correlation_id: String(image.correlation_id),
  };
  const entries = history ? mergedLog(loaded.history, log).filter((entry) => entryRevision(entry) <= through) : log;
  const events = eventsOf(identity, entries, loaded, after);
  const isFresh = (e: { revision: number }) => e.revision > before;
  return { fresh: events.filter(isFresh), earlier: events.filter((e) => !isFresh(e)) };
}

/**
 * The publication of each order record, made once per record however many reactions ask
 * (the fan-out and the business metrics): one read of the order's records at most.
 */
export function publicationOfRecords(reads: OrderReads) {
  const made = new WeakMap<StreamChange, ReturnType<typeof orderPublication>>();
  return (change: StreamChange) => {
    if (!made.has(change)) made.set(change, orderPublication(change, reads));
    return made.get(change)!;
  };
}
export type PublicationOf = ReturnType<typeof publicationOfRecords>;
