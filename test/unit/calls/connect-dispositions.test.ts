/** Connect's codes onto the contract's dispositions: the README's table, code by code. */
import { describe, expect, it } from 'vitest';
import { connectDisposition } from '#shared/calls/connect/dispositions.ts';

describe("a Connect contact's disposition", () => {
  it.each([
    ['HUMAN_ANSWERED', 'answered'],
    ['VOICEMAIL_BEEP', 'voicemail'],
    ['VOICEMAIL_NO_BEEP', 'voicemail'],
    ['SIT_TONE_BUSY', 'busy'],
    ['SIT_TONE_INVALID_NUMBER', 'invalid_number'],
    ['FAX_MACHINE_DETECTED', 'invalid_number'],
    ['AMD_UNANSWERED', 'no_answer'],
    ['SIT_TONE_DETECTED', 'failed'],
    ['AMD_ERROR', 'failed'],
    ['ERROR', 'failed'],
  ])('follows answering-machine detection: %s is %s', (detection, disposition) => {
    expect(connectDisposition({ detection, connected: true, disconnectReason: 'CUSTOMER_DISCONNECT' })).toBe(disposition);
  });

  it.each([
    ['TELECOM_BUSY', false, 'busy'],
    ['TELECOM_NUMBER_INVALID', false, 'invalid_number'],
    ['TELECOM_UNANSWERED', false, 'no_answer'],
    ['TELECOM_TIMEOUT', false, 'no_answer'],
    ['TELECOM_PROBLEM', true, 'failed'],
    ['TELECOM_POTENTIAL_BLOCKING', false, 'failed'],
    ['OUTBOUND_ATTEMPT_FAILED', false, 'failed'],
    ['CUSTOMER_DISCONNECT', true, 'answered'],
    ['CONTACT_FLOW_DISCONNECT', true, 'answered'],
    ['CUSTOMER_DISCONNECT', false, 'no_answer'],
  ] as const)('follows the disconnect reason without detection: %s (connected %s) is %s', (disconnectReason, connected, disposition) => {
    for (const detection of [undefined, 'UNDETECTED', 'AMD_UNRESOLVED', 'AMD_NOT_APPLICABLE']) {
      expect(connectDisposition({ detection, disconnectReason, connected })).toBe(disposition);
    }
  });

  it('reads the codes whatever their casing (the documented samples disagree)', () => {
    expect(connectDisposition({ detection: 'voicemail_beep', connected: true })).toBe('voicemail');
    expect(connectDisposition({ disconnectReason: 'telecom_busy', connected: false })).toBe('busy');
  });
});
