/** The chaos suite's oracle at the receiver: what it takes for an order's events to be whole. */
import { describe, expect, it } from 'vitest';
import { orderEventFaults, type ReceivedEvent } from '#test/support/chaos-table.ts';

let n = 0;
const status = (from: string | null, to: string): ReceivedEvent => ({
  event_id: `e${n++}`,
  event_type: 'commerce.order.status_changed.v1',
  external_order_id: 'o',
  data: { previous_state: from, processing_state: to },
});
const attempt = (a: number): ReceivedEvent => ({
  event_id: `a${a}`,
  event_type: 'commerce.call.attempt_completed.v1',
  external_order_id: 'o',
  data: { attempt: a },
});
const result: ReceivedEvent = { event_id: 'r', event_type: 'commerce.order.result_ready.v1', external_order_id: 'o', data: {} };
// A retried call, then a cancel: scheduled comes back, and the cancel may arrive first.
const retriedThenCancelled = [
  status('scheduled', 'cancelled'),
  status(null, 'received'),
  status('received', 'validated'),
  status('validated', 'scheduled'),
  status('scheduled', 'in_call'),
  status('in_call', 'scheduled'),
  attempt(1),
];
const cancelled = { state: 'cancelled', attempts: [1], hasResult: false, eventItems: [] };

describe('the chaos oracle', () => {
  it('accepts every event once or more, in any order, a state coming back included', () => {
    expect(orderEventFaults([...retriedThenCancelled, ...retriedThenCancelled.slice(0, 3)], cancelled)).toEqual([]);
  });

  it('finds a missing state change, a missing or extra attempt, a missing result and a missing write-back failure', () => {
    expect(
      orderEventFaults(
        retriedThenCancelled.filter((_, i) => i !== 4),
        cancelled,
      ),
    ).toHaveLength(1);
    expect(orderEventFaults(retriedThenCancelled, { ...cancelled, attempts: [1, 2] })).toHaveLength(1);
    expect(orderEventFaults([...retriedThenCancelled, result], cancelled)).toHaveLength(1);
    expect(orderEventFaults(retriedThenCancelled, { ...cancelled, hasResult: true })).toHaveLength(1);
    expect(orderEventFaults(retriedThenCancelled, { ...cancelled, eventItems: ['wb'] })).toHaveLength(1);
    expect(orderEventFaults([status(null, 'received'), ...retriedThenCancelled], cancelled)).not.toEqual([]);
  });
});
