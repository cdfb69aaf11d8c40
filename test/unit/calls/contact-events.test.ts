/** Connect's contact events as EventBridge delivers them, in either casing the documented samples use. */
import { describe, expect, it } from 'vitest';
import { contactEnd, reportOfContactEnd } from '#shared/calls/connect/contact-events.ts';

const event = (detail: Record<string, unknown>) => ({ source: 'aws.connect', 'detail-type': 'Amazon Connect Contact Event', detail });

describe('the end of a contact from its events', () => {
  it('reads a DISCONNECTED event in camel case', () => {
    const end = contactEnd(
      event({
        eventType: 'DISCONNECTED',
        contactId: 'c-1',
        initiationTimestamp: '2026-11-28T09:00:00.000Z',
        connectedToSystemTimestamp: '2026-11-28T09:00:05.000Z',
        disconnectTimestamp: '2026-11-28T09:01:00.000Z',
        disconnectReason: 'CONTACT_FLOW_DISCONNECT',
      }),
    )!;
    expect(reportOfContactEnd(end, 'declined', new Date())).toEqual({
      call_disposition: 'answered',
      decision: 'declined',
      started_at: '2026-11-28T09:00:00.000Z',
      ended_at: '2026-11-28T09:01:00.000Z',
    });
  });

  it('reads the same in Pascal case, with the disconnect reason as { Code }: busy when no choice was kept', () => {
    const end = contactEnd(
      event({ EventType: 'completed', ContactId: 'c-2', DisconnectTimestamp: '2026-11-28T09:01:00Z', DisconnectReason: { Code: 'TELECOM_BUSY' } }),
    )!;
    expect(end).toMatchObject({ contactId: 'c-2', disconnectReason: 'TELECOM_BUSY', connectedAt: undefined });
    expect(reportOfContactEnd(end, undefined, new Date('2026-11-28T09:02:00Z'))).toEqual({
      call_disposition: 'busy',
      started_at: '2026-11-28T09:01:00.000Z',
      ended_at: '2026-11-28T09:01:00.000Z',
    });
  });

  it('keeps the choice the customer made whatever the end says (a line that dropped after the key)', () => {
    const end = contactEnd(
      event({
        eventType: 'DISCONNECTED',
        contactId: 'c-3',
        connectedToSystemTimestamp: '2026-11-28T09:00:10Z',
        disconnectTimestamp: '2026-11-28T09:01:00Z',
        disconnectReason: 'TELECOM_PROBLEM',
      }),
    )!;
    expect(reportOfContactEnd(end, 'confirmed', new Date('2026-11-28T09:02:00Z'))).toMatchObject({ call_disposition: 'answered', decision: 'confirmed' });
    expect(reportOfContactEnd(end, undefined, new Date('2026-11-28T09:02:00Z'))).toMatchObject({ call_disposition: 'failed' });
  });

  it('ignores every other event, and one without a contact', () => {
    for (const type of ['INITIATED', 'CONNECTED_TO_SYSTEM', 'QUEUED', 'CONTACT_DATA_UPDATED'])
      expect(contactEnd(event({ eventType: type, contactId: 'c' }))).toBeUndefined();
    expect(contactEnd(event({ eventType: 'DISCONNECTED' }))).toBeUndefined();
    expect(contactEnd('not an event')).toBeUndefined();
  });
});
