import { describe, expect, it } from 'vitest';
import { orderPublication } from '#shared/webhooks/fan-out.ts';

const PK = 'T#acme#ORDER#o-1';
const event = (sk: string, type = 'commerce.order.status_changed.v1') => ({ pk: PK, sk, entity: 'event', event_type: type, event_id: sk });
/** The order's events as the table holds them after its completion at revision 6 (5 was the dial's claim). */
const EVENTS = [
  event('EVENT#000001'),
  event('EVENT#000002'),
  event('EVENT#000003'),
  event('EVENT#000004'),
  event('EVENT#000006'),
  event('EVENT#000006#attempt', 'commerce.call.attempt_completed.v1'),
  event('EVENT#000006#result', 'commerce.order.result_ready.v1'),
];
const revisionOf = (sk: string) => Number(sk.slice('EVENT#'.length, 'EVENT#'.length + 6));

/** The table's events of the order after `after` up to `through`, as order-store's query answers; the ranges asked for are kept. */
function table() {
  const asked: [number, number][] = [];
  const orderEvents = async (_pk: string, after: number, through: number) => {
    asked.push([after, through]);
    return EVENTS.filter((e) => revisionOf(e.sk) > after && revisionOf(e.sk) <= through);
  };
  return { asked, orderEvents };
}
const order = (revision: number, status_revision: number, marked = false) => ({
  pk: PK,
  entity: 'order',
  revision,
  status_revision,
  ...(marked ? { gsi2pk: 'STREAMDUE#3', gsi2sk: '2026-11-25T00:00:00.000Z' } : {}),
});
const ids = (events: { event_id: string }[]) => events.map((e) => e.event_id);

describe("an order's stream record publishes its events", () => {
  it('a write publishes the events it produced, and nothing else', async () => {
    const { asked, orderEvents } = table();
    const scheduled = await orderPublication({ eventName: 'MODIFY', oldImage: order(1, 1), newImage: order(3, 3) }, orderEvents);
    expect({ fresh: ids(scheduled.fresh), earlier: ids(scheduled.earlier) }).toEqual({ fresh: ['EVENT#000002', 'EVENT#000003'], earlier: [] });
    expect(asked).toEqual([[1, 3]]);
  });

  it('a write that changed no state (the dial claim) reads nothing', async () => {
    const { asked, orderEvents } = table();
    expect(await orderPublication({ eventName: 'MODIFY', oldImage: order(4, 4), newImage: order(5, 4) }, orderEvents)).toEqual({ fresh: [], earlier: [] });
    expect(asked).toEqual([]);
  });

  it('the write that leaves it final (its publication marker) publishes every event, those a skipped record missed as "earlier"', async () => {
    const { orderEvents } = table();
    const completed = await orderPublication({ eventName: 'MODIFY', oldImage: order(5, 4), newImage: order(6, 6, true) }, orderEvents);
    expect(ids(completed.fresh)).toEqual(['EVENT#000006', 'EVENT#000006#attempt', 'EVENT#000006#result']);
    expect(ids(completed.earlier)).toEqual(['EVENT#000001', 'EVENT#000002', 'EVENT#000003', 'EVENT#000004']);
  });

  it("a replay of a marked order (the reconciler's, with no old image) publishes every event as its own", async () => {
    const { orderEvents } = table();
    const replay = await orderPublication({ eventName: 'INSERT', newImage: order(6, 6, true) }, orderEvents);
    expect({ fresh: ids(replay.fresh).length, earlier: replay.earlier.length }).toEqual({ fresh: 7, earlier: 0 });
  });
});
