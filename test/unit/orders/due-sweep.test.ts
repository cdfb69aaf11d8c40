import { describe, expect, it } from 'vitest';
import { type DueOrder, fairTurns, overdueLeft } from '#shared/orders/due-sweep.ts';
import { keys } from '#shared/storage/keys.ts';

const due = (tenant: string, id: string, priority: number, at: string): DueOrder => ({ tenant, external_order_id: id, priority, gsi2sk: at });

describe('fairTurns', () => {
  it('serves tenants in turn, the longest waiting first, each by its own priority and then due time, at most its share', () => {
    const turns = fairTurns(
      [
        due('a', 'a-1', 1000, '2026-11-24T10:00:00.000Z'),
        due('a', 'a-2', 1000, '2026-11-24T09:00:00.000Z'),
        due('a', 'a-3', 5, '2026-11-24T08:00:00.000Z'),
        due('b', 'b-1', -1000, '2026-11-24T07:00:00.000Z'),
        due('c', 'c-1', 0, '2026-11-24T11:00:00.000Z'),
      ],
      2,
    );
    expect(turns.map((t) => t.external_order_id)).toEqual(['b-1', 'a-2', 'c-1', 'a-1']);
  });
});

describe('overdueLeft', () => {
  it('counts the orders due before the last sweep that this sweep does not start either: a backlog, not what just came due', () => {
    const now = new Date('2026-11-24T09:10:00.000Z');
    // One tenant's morning: 40 orders due at 9:00; another's order due at 9:05; two due this very minute.
    const morning = Array.from({ length: 40 }, (_, i) => due('big', `big-${i}`, 0, '2026-11-24T09:00:00.000Z'));
    const waiting = [...morning, due('small', 'small-1', 0, '2026-11-24T09:05:00.000Z'), due('small', 'small-2', 0, '2026-11-24T09:09:30.000Z')];
    const turns = fairTurns(waiting);
    expect(turns.map((t) => t.tenant).filter((t) => t === 'small')).toHaveLength(2);
    expect(overdueLeft(waiting, turns, now)).toBe(40 - 25);
    expect(overdueLeft(waiting, waiting, now)).toBe(0);
  });
});

describe('the order due index', () => {
  it('holds a due time past year 9999 as the last instant, which sorts after every real time, never as +010000-…', () => {
    const pk = keys.order('t', 'o').pk;
    expect(keys.orderDue(pk, new Date('+010000-01-01T07:00:00.000Z')).gsi2sk).toBe('9999-12-31T23:59:59.999Z');
    expect(keys.orderDue(pk, new Date('2026-11-24T09:00:00Z')).gsi2sk).toBe('2026-11-24T09:00:00.000Z');
  });
});
