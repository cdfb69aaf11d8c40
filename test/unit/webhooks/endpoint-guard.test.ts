import { describe, expect, it } from 'vitest';
import { messageGroupOf, parseDeliveryMessage } from '#shared/queue/webhook-queue.ts';
import { breakerState, pauseSeconds } from '#shared/webhooks/endpoint-guard.ts';

describe('the endpoint breaker', () => {
  it('pauses 30 s, doubling after each failed probe, at most 10 min (and at least 1 s however scaled)', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 12].map((pauses) => pauseSeconds(pauses))).toEqual([30, 60, 120, 240, 480, 600, 600, 600]);
    expect(pauseSeconds(1, 0.0001)).toBe(1);
  });

  it('is open while paused, half open once the pause has passed, closed without a pause', () => {
    const now = new Date('2026-11-24T12:00:00Z');
    expect(breakerState({}, now)).toBe('closed');
    expect(breakerState({ paused_until: '2026-11-24T12:00:30.000Z' }, now)).toBe('open');
    expect(breakerState({ paused_until: '2026-11-24T11:59:59.000Z' }, now)).toBe('half_open');
  });
});

describe('the webhook queue message group', () => {
  it('is the tenant (an SQS fair queue serves tenants evenly), hashed when SQS would not take it as it is', () => {
    expect(messageGroupOf('acme')).toBe('acme');
    expect(messageGroupOf('ä'.repeat(3))).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is read from the body once, into a typed message, and anything else is not a delivery message', () => {
    expect(parseDeliveryMessage(JSON.stringify({ tenant: 'acme', delivery_id: 'dlv_1', busy_waits: 2, extra: 1 }))).toEqual({
      tenant: 'acme',
      delivery_id: 'dlv_1',
      busy_waits: 2,
    });
    expect(parseDeliveryMessage(JSON.stringify({ tenant: 'acme', delivery_id: 'dlv_1', from_dead_letter_queue: true }))?.from_dead_letter_queue).toBe(true);
    for (const body of ['not json', '[]', 'null', JSON.stringify({ tenant: 'acme' }), JSON.stringify({ tenant: 7, delivery_id: 'd' }), undefined]) {
      expect(parseDeliveryMessage(body)).toBeUndefined();
    }
  });
});
