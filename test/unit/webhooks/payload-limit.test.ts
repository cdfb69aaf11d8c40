import { describe, expect, it } from 'vitest';
import { capabilities } from '#shared/discovery/discovery.ts';
import type { EventRecord } from '#shared/events/outbox.ts';
import { TenantConfigSchema } from '#shared/tenants/config.ts';
import { payloadOf } from '#shared/webhooks/payload.ts';

const event = (bytes: number) =>
  ({
    event_id: 'evt_1',
    event_type: 'commerce.order.result_ready.v1',
    tenant: 't',
    external_order_id: 'o-1',
    correlation_id: 'c',
    causation_id: null,
    occurred_at: '2026-11-24T10:00:00Z',
    data: { filler: 'x'.repeat(bytes) },
  }) as unknown as EventRecord;

describe('the webhook payload limit capabilities announce', () => {
  it('is where deliveries start to be truncated: an envelope at the limit is sent whole, one byte over it as a reference', () => {
    const limit = capabilities(TenantConfigSchema.parse({})).limits.webhook_payload_max_bytes;
    const overhead = Buffer.byteLength(payloadOf(event(0), (id) => `/orders/${id}`));
    const atLimit = payloadOf(event(limit - overhead), (id) => `/orders/${id}`);
    expect(Buffer.byteLength(atLimit)).toBe(limit);
    expect(JSON.parse(atLimit).data.truncated).toBeUndefined();
    const over = JSON.parse(payloadOf(event(limit - overhead + 1), (id) => `/orders/${id}`));
    expect(over.data).toEqual({ truncated: true, reason: 'payload_too_large', reference: '/orders/o-1' });
  });
});
