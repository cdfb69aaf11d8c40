/**
 * What a call on Amazon Connect became, from Connect's own codes: its answering-machine
 * detection status where it has one (campaign traffic), else its disconnect reason and whether
 * the contact ever reached the flow (CONNECTED_TO_SYSTEM). One table, the README's.
 *
 * `failed` is the platform's or the network's fault, never the customer's: it is recorded but
 * not counted toward `max_call_attempts`.
 */
import type { CallDisposition } from '../call-schemas.ts';

/** Answering-machine detection: what answered, when Connect could tell. */
const BY_DETECTION: Readonly<Record<string, CallDisposition>> = {
  HUMAN_ANSWERED: 'answered',
  VOICEMAIL_BEEP: 'voicemail',
  VOICEMAIL_NO_BEEP: 'voicemail',
  SIT_TONE_BUSY: 'busy',
  SIT_TONE_INVALID_NUMBER: 'invalid_number',
  // A fax machine is no number a customer can be reached on.
  FAX_MACHINE_DETECTED: 'invalid_number',
  AMD_UNANSWERED: 'no_answer',
  SIT_TONE_DETECTED: 'failed',
  AMD_ERROR: 'failed',
  ERROR: 'failed',
};

/** Disconnect reasons that say what happened whether or not the flow ran. */
const BY_REASON: Readonly<Record<string, CallDisposition>> = {
  TELECOM_BUSY: 'busy',
  TELECOM_NUMBER_INVALID: 'invalid_number',
  TELECOM_UNANSWERED: 'no_answer',
  TELECOM_TIMEOUT: 'no_answer',
  TELECOM_PROBLEM: 'failed',
  TELECOM_POTENTIAL_BLOCKING: 'failed',
  OUTBOUND_DESTINATION_ENDPOINT_ERROR: 'failed',
  OUTBOUND_RESOURCE_ERROR: 'failed',
  OUTBOUND_ATTEMPT_FAILED: 'failed',
  EXPIRED: 'failed',
  OTHER: 'failed',
};

export interface ContactOutcome {
  /** `answeringMachineDetectionStatus` of the event, or `AnsweringMachineDetectionStatus` of DescribeContact. */
  detection?: string | undefined;
  /** The disconnect reason's code. */
  disconnectReason?: string | undefined;
  /** Whether the contact reached the flow (media was established). */
  connected: boolean;
}

/** The contract's call disposition of a finished Connect contact. */
export function connectDisposition(outcome: ContactOutcome): CallDisposition {
  const detected = outcome.detection ? BY_DETECTION[outcome.detection.toUpperCase()] : undefined;
  if (detected) return detected;
  const reason = outcome.disconnectReason ? BY_REASON[outcome.disconnectReason.toUpperCase()] : undefined;
  if (reason) return reason;
  // Without detection (general traffic), a contact that reached the flow was answered; the dialog tells a person from silence.
  return outcome.connected ? 'answered' : 'no_answer';
}
