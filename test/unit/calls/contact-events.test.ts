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
    expect(reportOfContactEnd(end, { decision: 'declined', heard: true }, new Date())).toEqual({
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
    expect(reportOfContactEnd(end, { decision: 'confirmed', heard: true }, new Date('2026-11-28T09:02:00Z'))).toMatchObject({
      call_disposition: 'answered',
      decision: 'confirmed',
    });
    expect(reportOfContactEnd(end, undefined, new Date('2026-11-28T09:02:00Z'))).toMatchObject({ call_disposition: 'failed' });
  });

  it('reads a call no one got past the greeting of as no answer without detection, and as detection said with it', () => {
    const answered = (detection?: string) =>
      contactEnd(
        event({
          eventType: 'DISCONNECTED',
          contactId: 'c-4',
          connectedToSystemTimestamp: '2026-11-28T09:00:10Z',
          disconnectTimestamp: '2026-11-28T09:00:30Z',
          disconnectReason: 'CONTACT_FLOW_DISCONNECT',
          ...(detection ? { answeringMachineDetectionStatus: detection } : {}),
        }),
      )!;
    const at = new Date('2026-11-28T09:01:00Z');
    expect(reportOfContactEnd(answered(), { heard: false }, at).call_disposition).toBe('no_answer');
    expect(reportOfContactEnd(answered(), { heard: true }, at).call_disposition).toBe('answered');
    expect(reportOfContactEnd(answered('VOICEMAIL_BEEP'), { heard: false }, at).call_disposition).toBe('voicemail');
    expect(reportOfContactEnd(answered('HUMAN_ANSWERED'), { heard: false }, at).call_disposition).toBe('answered');
  });

  it('ignores every other event, and one without a contact', () => {
    for (const type of ['INITIATED', 'CONNECTED_TO_SYSTEM', 'QUEUED', 'CONTACT_DATA_UPDATED'])
      expect(contactEnd(event({ eventType: type, contactId: 'c' }))).toBeUndefined();
    expect(contactEnd(event({ eventType: 'DISCONNECTED' }))).toBeUndefined();
    expect(contactEnd('not an event')).toBeUndefined();
  });
});
