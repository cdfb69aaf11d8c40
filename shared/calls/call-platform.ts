/**
 * The call platform port: the voice platform places a call attempt for an order, plays the
 * conversation (dialog.ts) turn by turn, and reports how it went. A real platform answers
 * `pending` and reports later (its callback calls `recordAttempt`); the sandbox's simulated
 * network reports at once. Which platform calls a tenant's customers is the tenant's mode:
 * sandbox tenants always the simulated network, live tenants the deployment's platform.
 */

import { createHash } from 'node:crypto';
import type { TenantMode } from '../tenants/tenant-config.ts';
import type { BusinessOutcome, CallDisposition } from './call-schemas.ts';
import type { DialogScript } from './dialog.ts';
import { converse, sandboxCustomer, type TranscriptEntry } from './simulated-customer.ts';

export interface CallRequest {
  tenant: string;
  external_order_id: string;
  /** Whose call it is: a platform that keeps anything about a call finds it again for an erasure. */
  external_customer_id: string;
  attempt: number;
  /** E.164; handed to the platform only, never logged or stored with the attempt. */
  phone: string;
  /** What the customer hears and may press. */
  script: DialogScript;
  /** The customer's market (ISO country code): a live call comes from that market's caller id. */
  market?: string | undefined;
}

/** One call attempt of an order, as the platform knows it. */
export interface AttemptKey {
  tenant: string;
  external_order_id: string;
  attempt: number;
}

/** An attempt's opaque reference: what a live contact's attributes carry instead of anything about the customer. */
export const attemptReference = (key: AttemptKey): string =>
  createHash('sha256').update(`${key.tenant}\n${key.external_order_id}\n${key.attempt}`).digest('base64url').slice(0, 32);

export interface AttemptReport {
  call_disposition: CallDisposition;
  started_at: string;
  ended_at: string;
  /** For an answered call: what the customer decided (none: they answered and never chose). */
  decision?: Extract<BusinessOutcome, 'confirmed' | 'modified' | 'declined'>;
  /** Sandbox only: the scenario digit, so the sandbox write-back can fail scenario 8. */
  scenario?: string;
  /** Sandbox only: what was said and pressed, kept with the attempt so a partner sees what its customers hear. */
  transcript?: TranscriptEntry[];
  /** The platform refused to call the destination: the order ends at once (contract-decisions section 11). */
  refused?: 'destination_not_allowed';
}

export interface CallPlatform {
  readonly name: string;
  /**
   * How long a call of this platform can last: an order still `in_call` after it (the worker
   * died mid-call) has its attempt recorded as failed and retried under the attempt limit.
   */
  readonly stuckAfterSeconds: number;
  /**
   * Places the attempt's call; throws DialThrottled (its rate) or DialOverQuota (its calls in
   * flight) when it refuses to dial now, and DialRefused when it refuses the destination (nothing was dialled).
   */
  startAttempt(request: CallRequest, now: Date): Promise<AttemptReport | 'pending'>;
  /**
   * Ends the attempt's call, or keeps it from starting if it has not yet: an order cancelled
   * after its dial was claimed. Idempotent; the platform still reports the attempt.
   */
  cancel(request: AttemptKey): Promise<void>;
  /** GDPR erasure: the platform forgets what it keeps of the customer (numbers, recordings, transcripts). */
  erase(request: { tenant: string; external_customer_id: string }): Promise<void>;
  /**
   * A platform that reports later: what it says became of an attempt whose report never came, at
   * the attempt's deadline (`ongoing`: the call still runs; undefined: it knows of no call).
   */
  outcomeOf?(key: AttemptKey, now: Date): Promise<AttemptReport | 'ongoing' | undefined>;
}

/**
 * Claims a place for one live dial of `tenant` at `now` in the deployment's dial rate:
 * `placed`, or refused because the second is full, or because the tenant is ahead of one that
 * waits (its turn comes once the other catches up).
 */
export type DialRate = (now: Date, tenant: string) => Promise<DialClaim>;
/** A live dial's admission: placed, or refused for the second's dials, the tenant's share, or every call place taken (call-slots.ts). */
export type DialClaim = 'placed' | 'second_full' | 'behind_others' | 'calls_full';

/** The platform refused to dial now (its rate): nothing was dialled, and the attempt is dialled again shortly. */
export class DialThrottled extends Error {
  override readonly name = 'DialThrottled';
}

/** The platform holds as many calls as it may (its concurrency quota): nothing was dialled, and the attempt waits for a call to end. */
export class DialOverQuota extends Error {
  override readonly name = 'DialOverQuota';
}

/**
 * The platform refused the destination or the permission to call it (Connect's
 * DestinationNotAllowedException, OutboundContactNotPermittedException, or an invalid number):
 * nothing was dialled, and dialling again cannot help.
 */
export class DialRefused extends Error {
  override readonly name = 'DialRefused';
}

/** What the simulated network was asked to erase (it keeps nothing else): tenant and customer id, newest last. */
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
    const { call_disposition, decision, transcript } = converse(request.script, sandboxCustomer(request.phone, request.attempt));
    return { call_disposition, ...(decision ? { decision } : {}), started_at: at, ended_at: at, scenario: request.phone.at(-1)!, transcript };
  },
};

/** The platforms of a deployment: the simulated network always, and the live platform where the deployment has one. */
export interface CallPlatforms {
  sandbox: CallPlatform;
  live: CallPlatform | undefined;
}

/** The platform a tenant's customers are called through; undefined: a live tenant on a deployment without a live platform. */
export const platformFor = (platforms: CallPlatforms, mode: TenantMode): CallPlatform | undefined => (mode === 'live' ? platforms.live : platforms.sandbox);

/** The longest call of any of the deployment's platforms. */
export const longestCallSeconds = (platforms: CallPlatforms): number => Math.max(platforms.sandbox.stuckAfterSeconds, platforms.live?.stuckAfterSeconds ?? 0);
