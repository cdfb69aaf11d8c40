/**
 * The call platform port: the voice platform starts a call attempt for an order and reports
 * how it went. A real platform answers `pending` and reports later (its callback calls
 * `recordAttempt`); the sandbox dialer of contract-decisions section 7 reports at once.
 */
import type { BusinessOutcome, CallDisposition } from '../orders/order-schemas.ts';
import type { SnapshotLine } from '../orders/snapshot.ts';

export interface CallRequest {
  tenant: string;
  external_order_id: string;
  attempt: number;
  /** E.164; handed to the platform only, never logged or stored with the attempt. */
  phone: string;
  locale: string;
  lines: readonly SnapshotLine[];
  currency: string;
}

/** One call attempt of an order, as the platform knows it. */
export interface AttemptKey {
  tenant: string;
  external_order_id: string;
  attempt: number;
}

export interface AttemptReport {
  call_disposition: CallDisposition;
  started_at: string;
  ended_at: string;
  /** For an answered call: what the customer decided. */
  decision?: Extract<BusinessOutcome, 'confirmed' | 'modified' | 'declined'>;
  /** Sandbox only: the scenario digit, so the sandbox write-back can fail scenario 8. */
  scenario?: string;
}

export interface CallPlatform {
  readonly name: string;
  /**
   * How long a call of this platform can last: an order still `in_call` after it (the worker
   * died mid-call) has its attempt recorded as failed and retried under the attempt limit.
   */
  readonly stuckAfterSeconds: number;
  startAttempt(request: CallRequest, now: Date): Promise<AttemptReport | 'pending'>;
  /**
   * Ends the attempt's call, or keeps it from starting if it has not yet: an order cancelled
   * after its dial was claimed. Idempotent; the platform still reports the attempt.
   */
  cancel(request: AttemptKey): Promise<void>;
  /** GDPR erasure: the platform forgets what it keeps of the customer (numbers, recordings, transcripts). */
  erase(request: { tenant: string; external_customer_id: string }): Promise<void>;
}

/** Decides by the last digit of the phone number and the attempt number (contract-decisions 7). */
export function sandboxDecision(phone: string, attempt: number): Pick<AttemptReport, 'call_disposition' | 'decision'> {
  const digit = phone.at(-1);
  switch (digit) {
    case '1':
      return { call_disposition: 'no_answer' };
    case '2':
      return attempt === 1 ? { call_disposition: 'no_answer' } : { call_disposition: 'answered', decision: 'confirmed' };
    case '3':
      return { call_disposition: 'answered', decision: 'declined' };
    case '4':
      return { call_disposition: 'answered', decision: 'modified' };
    case '5':
      return attempt === 1 ? { call_disposition: 'busy' } : { call_disposition: 'answered', decision: 'confirmed' };
    case '9':
      return { call_disposition: 'invalid_number' };
    default: // 0, 6, 7 and 8
      return { call_disposition: 'answered', decision: 'confirmed' };
  }
}

/** What the sandbox dialer was asked to erase (it keeps nothing else): tenant and customer id, newest last. */
export const sandboxErasures: { tenant: string; external_customer_id: string }[] = [];

export const sandboxDialer: CallPlatform = {
  name: 'sandbox',
  // Its calls take no time: a crash mid-call is recovered within a minute.
  stuckAfterSeconds: 60,
  // Its calls end as they begin: by the time a cancel arrives, there is no call left to end.
  async cancel() {},
  async erase(request) {
    sandboxErasures.push({ tenant: request.tenant, external_customer_id: request.external_customer_id });
    if (sandboxErasures.length > 1_000) sandboxErasures.shift();
  },
  async startAttempt(request, now) {
    const at = now.toISOString();
    return { ...sandboxDecision(request.phone, request.attempt), started_at: at, ended_at: at, scenario: request.phone.at(-1)! };
  },
};

export function callPlatform(name: 'sandbox'): CallPlatform {
  switch (name) {
    case 'sandbox':
      return sandboxDialer;
  }
}
