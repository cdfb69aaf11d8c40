/**
 * An order's log: the events its writes produced, kept in the order item itself. The order is
 * its own outbox: each change is one conditional write of the order that also appends the
 * entries of the events it produced, so no change is without its events and no event without
 * its change, and the order's stream record publishes them (fan-out.ts). The log is also the
 * order's history. Pure functions.
 *
 * An entry is a short string (every byte past 1 KB doubles each write of the order):
 * - status change: `{revision}|{state code}|{reason}|{at, base-36 ms}[|{causation as JSON}]`,
 *   causation absent meaning "the previous status event" (what a worker acted on);
 * - call attempt recorded: `{revision}|A|{attempt}|{at}|{revision of its in_call change}`;
 * - result recorded: `{revision}|R|{at}|{revision of its in_call change}`;
 * - correlation changed (a PATCH): `{revision}|K|{the correlation id of the events before it}`.
 *
 * Event ids derive from the keys the events had as items of their own (`EVENT#{revision}`,
 * `…#attempt`, `…#result`), so an event published from the log keeps the id it always had.
 * So that no number of changes grows the order toward DynamoDB's item limit, a long log moves
 * its older entries to history items (`HISTORY#{first revision}`) written before the order.
 */

import { ORDER_STATES, type OrderState } from '../api/order-states.ts';
import type { CallAttempt, OrderResult } from '../calls/call-schemas.ts';
import { type EventRecord, eventIdFor, eventItem } from '../events/outbox.ts';
import { keys } from '../storage/keys.ts';

export type LogEntry =
  | { kind: 'status'; revision: number; to: OrderState; reason: string | null; at: string; causation?: string | null }
  | { kind: 'attempt'; revision: number; attempt: number; at: string; causeRevision: number }
  | { kind: 'result'; revision: number; at: string; causeRevision: number }
  | { kind: 'correlation'; revision: number; before: string };

/** One state change of an order, as its history shows it. */
export interface HistoryEntry {
  revision: number;
  from: OrderState | null;
  to: OrderState;
  reason: string | null;
  at: string;
}

const STATE_CODES: Readonly<Record<OrderState, string>> = {
  received: 'r',
  validated: 'v',
  scheduled: 's',
  in_call: 'i',
  completed: 'c',
  cancelled: 'x',
  rejected: 'j',
};
const STATE_OF_CODE = new Map(ORDER_STATES.map((state) => [STATE_CODES[state], state]));

const time = (iso: string) => Date.parse(iso).toString(36);
const iso = (base36: string) => new Date(Number.parseInt(base36, 36)).toISOString();
/** A reason is a short code, but nothing may break the entry's fields apart. */
const escaped = (text: string) => text.replaceAll('%', '%25').replaceAll('|', '%7C');
const unescaped = (text: string) => text.replaceAll('%7C', '|').replaceAll('%25', '%');

export function encodeEntry(entry: LogEntry): string {
  switch (entry.kind) {
    case 'status': {
      const base = `${entry.revision}|${STATE_CODES[entry.to]}|${escaped(entry.reason ?? '')}|${time(entry.at)}`;
      return entry.causation === undefined ? base : `${base}|${JSON.stringify(entry.causation)}`;
    }
    case 'attempt':
      return `${entry.revision}|A|${entry.attempt}|${time(entry.at)}|${entry.causeRevision}`;
    case 'result':
      return `${entry.revision}|R|${time(entry.at)}|${entry.causeRevision}`;
    case 'correlation':
      return `${entry.revision}|K|${entry.before}`;
  }
}

export function decodeEntry(text: string): LogEntry {
  const [revisionText, code, ...rest] = text.split('|');
  const revision = Number(revisionText);
  if (code === 'A') return { kind: 'attempt', revision, attempt: Number(rest[0]), at: iso(rest[1]!), causeRevision: Number(rest[2]) };
  if (code === 'R') return { kind: 'result', revision, at: iso(rest[0]!), causeRevision: Number(rest[1]) };
  if (code === 'K') return { kind: 'correlation', revision, before: rest.join('|') };
  const to = STATE_OF_CODE.get(code!);
  if (!to) throw new Error(`not an order log entry: ${text.slice(0, 40)}`);
  const [reason, at, ...causation] = rest;
  return {
    kind: 'status',
    revision,
    to,
    reason: reason ? unescaped(reason) : null,
    at: iso(at!),
    ...(causation.length ? { causation: JSON.parse(causation.join('|')) as string | null } : {}),
  };
}

/** The revision of the write that appended an entry, read without decoding the rest. */
export const entryRevision = (entry: string): number => Number(entry.split('|', 1)[0]);

/** The entries of several stretches of one log (history items and the order's own), oldest first, each once. */
export function mergedLog(...parts: readonly (readonly string[] | undefined)[]): string[] {
  return [...new Set(parts.flatMap((part) => part ?? []))].sort((a, b) => entryRevision(a) - entryRevision(b));
}

/** The state changes of a log (its whole length, or the newest stretch from a state change on). */
export function historyOf(log: readonly string[]): HistoryEntry[] {
  const history: HistoryEntry[] = [];
  for (const entry of log.map(decodeEntry)) {
    if (entry.kind !== 'status') continue;
    history.push({ revision: entry.revision, from: history.at(-1)?.to ?? null, to: entry.to, reason: entry.reason, at: entry.at });
  }
  return history;
}

/**
 * The newest state change, or the newest into `to` (its revision names the status event a
 * worker's next step is caused by, its reason the order's; the newest into `in_call` caused
 * that call's attempt).
 */
export function lastStatus(log: readonly string[], to?: OrderState): Extract<LogEntry, { kind: 'status' }> | undefined {
  for (let i = log.length - 1; i >= 0; i--) {
    const entry = decodeEntry(log[i]!);
    if (entry.kind === 'status' && (to === undefined || entry.to === to)) return entry;
  }
  return undefined;
}

/** Entries a log keeps in the order item; past this many, the older ones move to a history item. */
export const LOG_LIMIT = 12;
/** Entries at least left in the order item by such a move: more than one write appends (3), with a state change before them. */
const LOG_KEPT = 6;

/**
 * Where a log that grew past LOG_LIMIT is cut: the entries before the returned index move to a
 * history item. The kept part starts with a state change, so every entry a later write appends
 * finds its previous state (and its default causation) in the order item. 0: nothing to move.
 */
export function spillPoint(log: readonly string[]): number {
  if (log.length <= LOG_LIMIT) return 0;
  for (let i = log.length - LOG_KEPT; i > 0; i--) if (decodeEntry(log[i]!).kind === 'status') return i;
  return 0;
}

/** What an order's events are made of besides its log: its attempts (by number) and its result. */
export interface OrderRecords {
  attempts: ReadonlyMap<number, CallAttempt>;
  result: OrderResult | undefined;
}

/** The revisions a publication covers: its events come after `after`, up to its record's own revision `through`. */
export interface PublicationSpan {
  after: number;
  through: number;
}

export interface OrderIdentity {
  pk: string;
  tenant: string;
  external_order_id: string;
  /** The order's correlation id now: the events since its last change of correlation carry it. */
  correlation_id: string;
}

const statusKey = (pk: string, revision: number) => keys.orderEvent(pk, revision);
/** The id of the status event of the order's change at `revision` (the key its item once had). */
export const statusEventId = (pk: string, revision: number) => eventIdFor(pk, statusKey(pk, revision).sk);

/**
 * The events of a log's entries with a revision after `after` (0: all), oldest first, as
 * their items once were: the same ids, envelopes and data. `log` must reach back to a state
 * change before the first such entry (the order's own log always does), and `records` hold the
 * attempts and result the entries name.
 */
/** An event of an order's log, with the revision of the order's write that made it beside it. */
export type OrderEvent = EventRecord & { pk: string; sk: string; revision: number };

export function eventsOf(order: OrderIdentity, log: readonly string[], records: OrderRecords, after = 0): OrderEvent[] {
  const entries = log.map(decodeEntry);
  const events: OrderEvent[] = [];
  const correlationAt = (revision: number) =>
    entries.find((e): e is Extract<LogEntry, { kind: 'correlation' }> => e.kind === 'correlation' && e.revision > revision)?.before ?? order.correlation_id;
  const common = (revision: number, at: string) => ({
    tenant: order.tenant,
    external_order_id: order.external_order_id,
    correlation_id: correlationAt(revision),
    occurredAt: new Date(at),
    retainedWithOwner: true,
  });
  let previous: Extract<LogEntry, { kind: 'status' }> | undefined;
  for (const entry of entries) {
    if (entry.kind === 'status') {
      if (entry.revision > after) {
        const causation = entry.causation !== undefined ? entry.causation : previous ? statusEventId(order.pk, previous.revision) : null;
        events.push({
          ...eventItem(statusKey(order.pk, entry.revision), {
            ...common(entry.revision, entry.at),
            event_type: 'commerce.order.status_changed.v1',
            causation_id: causation,
            data: { previous_state: previous?.to ?? null, processing_state: entry.to, reason: entry.reason },
          }),
          revision: entry.revision,
        });
      }
      previous = entry;
    } else if (entry.kind === 'attempt' && entry.revision > after) {
      const attempt = records.attempts.get(entry.attempt);
      if (!attempt) throw new Error(`attempt ${entry.attempt} of an order is not stored`);
      const { attempt: number, call_disposition, started_at, ended_at } = attempt;
      events.push({
        ...eventItem(keys.orderEvent(order.pk, entry.revision, '#attempt'), {
          ...common(entry.revision, entry.at),
          event_type: 'commerce.call.attempt_completed.v1',
          causation_id: statusEventId(order.pk, entry.causeRevision),
          data: { attempt: number, call_disposition, started_at, ended_at },
        }),
        revision: entry.revision,
      });
    } else if (entry.kind === 'result' && entry.revision > after) {
      if (!records.result) throw new Error('the result of an order is not stored');
      events.push({
        ...eventItem(keys.orderEvent(order.pk, entry.revision, '#result'), {
          ...common(entry.revision, entry.at),
          event_type: 'commerce.order.result_ready.v1',
          causation_id: statusEventId(order.pk, entry.causeRevision),
          data: { result: resultView(records.result) },
        }),
        revision: entry.revision,
      });
    }
  }
  return events;
}

/** The result as the contract shows it, without what its item keeps besides (write-back state, scenario). */
export const resultView = (r: OrderResult): OrderResult => ({
  external_order_id: r.external_order_id,
  processing_state: r.processing_state,
  call_disposition: r.call_disposition,
  business_outcome: r.business_outcome,
  final_order_snapshot: r.final_order_snapshot,
  applied_rules: r.applied_rules,
  completed_at: r.completed_at,
});

/** Whether entries after `after` need the order's attempts or result to become events. */
export const needsRecords = (log: readonly string[], after: number): boolean =>
  log.some((text) => {
    const code = text.split('|', 2)[1];
    return entryRevision(text) > after && (code === 'A' || code === 'R');
  });

/** Whether the log records attempt `attempt` already (a report that comes again changes nothing). */
export const recordsAttempt = (log: readonly string[], attempt: number): boolean =>
  log.some((text) => {
    const entry = decodeEntry(text);
    return entry.kind === 'attempt' && entry.attempt === attempt;
  });
