import { describe, expect, it } from 'vitest';
import type { OrderState } from '#shared/api/order-states.ts';
import type { CallAttempt, OrderResult } from '#shared/calls/call-schemas.ts';
import { eventIdFor } from '#shared/events/outbox.ts';
import { encodeEntry, type LogEntry, type PublicationSpan } from '#shared/orders/order-log.ts';
import { orderPublication } from '#shared/orders/order-publication.ts';

const PK = 'T#acme#ORDER#o-1';
const at = (second: number) => `2026-11-25T11:00:${String(second).padStart(2, '0')}.000Z`;
const status = (revision: number, to: OrderState, reason: string | null = null): LogEntry => ({
  kind: 'status',
  revision,
  to,
  reason,
  at: at(revision),
  ...(revision === 1 ? { causation: 'req-1' } : {}),
});
/** The order's log after its completion at revision 6 (5 was the dial's claim, which produced no event). */
const LOG = [
  status(1, 'received'),
  status(2, 'validated'),
  status(3, 'scheduled'),
  status(4, 'in_call'),
  status(6, 'completed', 'confirmed'),
  { kind: 'attempt', revision: 6, attempt: 1, at: at(6), causeRevision: 4 },
  { kind: 'result', revision: 6, at: at(6), causeRevision: 4 },
].map((e) => encodeEntry(e as LogEntry));
const ATTEMPT: CallAttempt = { attempt: 1, call_disposition: 'answered', started_at: at(4), ended_at: at(5) };
const RESULT = { external_order_id: 'o-1', processing_state: 'completed', business_outcome: 'confirmed', completed_at: at(6) } as unknown as OrderResult;

/** The order's records as order-store reads them; the reads made are counted. */
function table(history: string[] = []) {
  const reads: string[] = [];
  const recordsOf = {
    records: async (pk: string) => {
      reads.push(pk);
      return { attempts: new Map([[1, ATTEMPT]]), result: RESULT, history };
    },
    publishedThrough: async () => 0,
  };
  return { reads, recordsOf };
}
const order = (revision: number, through: number, marked = false, log = LOG) => ({
  pk: PK,
  tenant: 'acme',
  external_order_id: 'o-1',
  correlation_id: 'cor_1',
  entity: 'order',
  revision,
  log: log.filter((e) => Number(e.split('|')[0]) <= through),
  ...(marked ? { gsi2pk: 'STREAMDUE#3', gsi2sk: '2026-11-25T00:00:00.000Z' } : {}),
});
const id = (sk: string) => eventIdFor(PK, sk);
const ids = (events: { event_id: string }[]) => events.map((e) => e.event_id);

describe("an order's stream record publishes the events in its log", () => {
  it('a write publishes the events it produced, with the ids their items once had, and reads nothing else', async () => {
    const { reads, recordsOf } = table();
    const scheduled = await orderPublication({ eventName: 'MODIFY', oldImage: order(1, 1), newImage: order(3, 3) }, recordsOf);
    expect({ fresh: ids(scheduled.fresh), earlier: ids(scheduled.earlier) }).toEqual({ fresh: [id('EVENT#000002'), id('EVENT#000003')], earlier: [] });
    expect(scheduled.fresh.map((e) => e.data)).toEqual([
      { previous_state: 'received', processing_state: 'validated', reason: null },
      { previous_state: 'validated', processing_state: 'scheduled', reason: null },
    ]);
    // Each caused by the change before it; the first by the partner's request.
    expect(scheduled.fresh.map((e) => e.causation_id)).toEqual([id('EVENT#000001'), id('EVENT#000002')]);
    expect(reads).toEqual([]);
  });

  it('a write that changed no state (the dial claim) publishes nothing and reads nothing', async () => {
    const { reads, recordsOf } = table();
    expect(await orderPublication({ eventName: 'MODIFY', oldImage: order(4, 4), newImage: order(5, 5) }, recordsOf)).toEqual({ fresh: [], earlier: [] });
    expect(reads).toEqual([]);
  });

  it('the write that leaves it final (its publication marker) publishes every event, those a skipped record missed as "earlier"', async () => {
    const { reads, recordsOf } = table();
    const completed = await orderPublication({ eventName: 'MODIFY', oldImage: order(5, 5), newImage: order(6, 6, true) }, recordsOf);
    expect(ids(completed.fresh)).toEqual([id('EVENT#000006'), id('EVENT#000006#attempt'), id('EVENT#000006#result')]);
    expect(ids(completed.earlier)).toEqual([id('EVENT#000001'), id('EVENT#000002'), id('EVENT#000003'), id('EVENT#000004')]);
    const [, attempt, result] = completed.fresh;
    expect(attempt).toMatchObject({ event_type: 'commerce.call.attempt_completed.v1', causation_id: id('EVENT#000004'), data: ATTEMPT });
    expect(result).toMatchObject({ event_type: 'commerce.order.result_ready.v1', occurred_at: at(6), data: { result: RESULT } });
    expect(completed.earlier[0]).toMatchObject({ causation_id: 'req-1', data: { previous_state: null, processing_state: 'received' } });
    expect(reads).toEqual([PK]);
  });

  it("a replay of a marked order (the reconciler's, with no old image) publishes every event as its own, the log's moved stretches included", async () => {
    const { recordsOf } = table(LOG.slice(0, 3));
    const replay = await orderPublication({ eventName: 'INSERT', newImage: { ...order(6, 6, true), log: LOG.slice(2) } }, recordsOf);
    expect({ fresh: replay.fresh.length, earlier: replay.earlier.length }).toEqual({ fresh: 7, earlier: 0 });
    expect(ids(replay.fresh).slice(0, 2)).toEqual([id('EVENT#000001'), id('EVENT#000002')]);
  });

  it('a marked record publishes only what came after its last completed publication (`published`), however long the order lived', async () => {
    const reads: { history: PublicationSpan | null }[] = [];
    const recordsOf = {
      records: async (_pk: string, options: { history: PublicationSpan | null }) => {
        reads.push(options);
        return { attempts: new Map([[1, ATTEMPT]]), result: RESULT, history: LOG.slice(0, 3) };
      },
      // The record's image carries an older mark than the order has now.
      publishedThrough: async () => 4,
    };
    const image = { ...order(6, 6, true), log: LOG.slice(3), published: 1 };
    const completed = await orderPublication({ eventName: 'MODIFY', oldImage: order(5, 5), newImage: image }, recordsOf);
    expect({ fresh: ids(completed.fresh).length, earlier: completed.earlier.length }).toEqual({ fresh: 3, earlier: 0 });
    // Its previous state is in the order's own log: nothing moved out of it is read.
    expect(reads).toEqual([{ history: null }]);
  });

  it('a record handled after later changes of its order publishes only what its own write reached, asking for the stretches of that span alone', async () => {
    const reads: { history: PublicationSpan | null }[] = [];
    // The order has moved on to revision 6 and moved its log up to the completion out since.
    const recordsOf = {
      records: async (_pk: string, options: { history: PublicationSpan | null }) => {
        reads.push(options);
        return { attempts: new Map([[1, ATTEMPT]]), result: RESULT, history: LOG };
      },
      publishedThrough: async () => 1,
    };
    // The record of revision 3, whose image holds the log from the scheduling on; published through 1.
    const image = { ...order(3, 3, true), log: LOG.slice(2, 3) };
    const lagging = await orderPublication({ eventName: 'MODIFY', oldImage: order(2, 2), newImage: image }, recordsOf);
    expect({ fresh: ids(lagging.fresh), earlier: ids(lagging.earlier) }).toEqual({ fresh: [id('EVENT#000003')], earlier: [id('EVENT#000002')] });
    expect(lagging.fresh[0]).toMatchObject({ data: { previous_state: 'validated', processing_state: 'scheduled' } });
    expect(reads).toEqual([{ history: { after: 1, through: 3 } }]);
  });
});
