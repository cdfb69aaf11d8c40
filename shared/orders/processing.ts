/**
 * Order processing: qualification, scheduling, call attempts and results. `advanceOrder`
 * takes an order as far as it can go now; the stream processor calls it when an order
 * changes, the call scheduler when an order's contact time comes. Every step is a
 * compare-and-set write, so concurrent runs for the same order cannot both act. Everything
 * outside the domain (orders, customers, variants, rules, configuration, the call platform)
 * comes in through `ProcessingPorts`, built once per function by its composition root.
 */

import type { OrderState } from '../api/order-states.ts';
import { type AttemptKey, type AttemptReport, type DialClaim, longestCallSeconds, platformFor } from '../calls/call-platform.ts';
import { RevisionConflict } from '../errors.ts';
import { logger } from '../logging/logger.ts';
import {
  attemptKeyOf,
  attemptScript,
  claimOrUndefined,
  dial,
  dialAdmitted,
  ONGOING_CALL_RETRY_MS,
  recordAttempt,
  recordUnreportedCall,
  redial,
  reportAttempt,
  unreportedOutcome,
  untilNextSecond,
} from './call-attempts.ts';
import { destinationAllowed } from './destination.ts';
import { type Facts, factsFor } from './facts.ts';
import { rejectionFields, type StoredOrder } from './order.ts';
import { pendingChanges } from './pending-changes.ts';
import type { ProcessingPorts } from './processing-ports.ts';
import { type Qualification, qualify } from './qualification.ts';
import { callingWindow, isCallable, nextContactAt } from './scheduler.ts';
import { isFinal } from './state-machine.ts';

export { recordAttempt, recordFinishedCall } from './call-attempts.ts';
export type { ProcessingPorts } from './processing-ports.ts';

/** While an order waits for a variant to reach the variant index, qualification is retried this often. */
const QUALIFICATION_RETRY_MS = 2_000;
/** While a tenant is suspended, its due calls are looked at again this often. */
const SUSPENDED_RETRY_MS = 5 * 60_000;

function qualificationOf(order: StoredOrder, facts: Facts): Qualification {
  return qualify({
    order,
    customer: facts.customer ? { consent: facts.customer.consent.status, anonymized: Boolean(facts.customer.anonymized_at) } : undefined,
    variants: facts.variants,
    rules: facts.rules,
    repurchaseIntentEnabled: facts.config.features_enabled.repurchase_intent,
    destinationAllowed: destinationAllowed(facts.config, facts.customer),
  });
}

/** For PATCH and upserts: qualify the new content at once. */
export async function requalify(ports: ProcessingPorts, order: StoredOrder, now = new Date()) {
  const q = qualificationOf(order, await factsFor(ports, order));
  // The same grace as a new order's: the call checks the variants again before it starts.
  if (awaitingVariantIndex(ports, order, q, now)) return { to: 'validated' as OrderState, reason: null, substitutions: [] };
  return q.qualified
    ? { to: 'validated' as OrderState, reason: null, substitutions: q.substitutions }
    : { to: 'rejected' as OrderState, reason: q.reason, substitutions: [] };
}

type FactsOf = (order: StoredOrder) => Promise<Facts>;

/**
 * A variant imported a moment ago may not be in the variant index yet: within the grace
 * period after the order's content was set (its creation, or the PATCH or upsert that changed
 * it), an unknown variant means "look again shortly", never a final rejection.
 */
function awaitingVariantIndex(ports: ProcessingPorts, order: StoredOrder, q: Qualification, now: Date): boolean {
  const since = Date.parse(order.content_changed_at ?? order.created_at);
  return !q.qualified && q.reason === 'unknown_variant' && now.getTime() - since < ports.settings.variantIndexGraceSeconds * 1000;
}

/** The call scheduler qualifies the order again shortly, without holding up the stream. */
async function qualifyAgainShortly(ports: ProcessingPorts, order: StoredOrder, now: Date): Promise<undefined> {
  if (order.retry_qualification_at && Date.parse(order.retry_qualification_at) > now.getTime()) return undefined;
  await ports.orders.write(order, { set: { retry_qualification_at: new Date(now.getTime() + QUALIFICATION_RETRY_MS).toISOString() } }, now);
  return undefined;
}

/** `received`: qualify; while a variant may still be on its way to the variant index, ask the scheduler to try again shortly. */
async function qualifyStep(ports: ProcessingPorts, order: StoredOrder, now: Date, facts: Facts): Promise<StoredOrder | undefined> {
  const q = qualificationOf(order, facts);
  if (awaitingVariantIndex(ports, order, q, now)) return qualifyAgainShortly(ports, order, now);
  const cleared = { retry_qualification_at: undefined };
  return ports.orders.write(
    order,
    q.qualified
      ? { to: 'validated', set: { ...cleared, substitutions: q.substitutions } }
      : { to: 'rejected', reason: q.reason, set: { ...cleared, ...rejectionFields(order, q.reason) } },
    now,
  );
}

/** One step for the order in its current state: the order as written, or undefined when nothing is to be done now. */
async function step(ports: ProcessingPorts, order: StoredOrder, now: Date, factsOf: FactsOf): Promise<StoredOrder | undefined> {
  switch (order.processing_state) {
    case 'received':
      return qualifyStep(ports, order, now, await factsOf(order));
    case 'validated': {
      const facts = await factsOf(order);
      // A PATCH or upsert validated while its variant was awaited: checked again after the grace,
      // as a new order is, not first at a contact time that may be months away.
      const q = qualificationOf(order, facts);
      if (awaitingVariantIndex(ports, order, q, now)) return qualifyAgainShortly(ports, order, now);
      if (!q.qualified && q.reason === 'unknown_variant') {
        return ports.orders.write(
          order,
          { to: 'rejected', reason: q.reason, set: { retry_qualification_at: undefined, ...rejectionFields(order, q.reason) } },
          now,
        );
      }
      const window = callingWindow(facts.config, facts.customer);
      if (!window) return ports.orders.write(order, { to: 'rejected', reason: 'no_market_configured' }, now);
      const earliest = new Date(Math.max(now.getTime(), order.contact_not_before ? Date.parse(order.contact_not_before) : 0));
      return ports.orders.write(order, { to: 'scheduled', set: { next_contact_at: nextContactAt(earliest, window).toISOString() } }, now);
    }
    case 'scheduled': {
      if (order.next_contact_at && Date.parse(order.next_contact_at) > now.getTime()) return undefined;
      return startAttempt(ports, order, now, await factsOf(order));
    }
    case 'in_call': {
      // A dial the platform throttled: the same attempt is dialled again (its claim is the order's write).
      if (order.redial_at) return Date.parse(order.redial_at) > now.getTime() ? undefined : redial(ports, order, now, await factsOf(order));
      // Only the scheduler's check for a stuck call gets here: what the platform says became of it, else failed.
      const deadline = order.call_deadline_at
        ? Date.parse(order.call_deadline_at)
        : Date.parse(order.updated_at) + longestCallSeconds(ports.callPlatforms) * 1000;
      if (deadline > now.getTime()) return undefined;
      const facts = await factsOf(order);
      const platform = platformFor(ports.callPlatforms, facts.config.mode);
      const report = await unreportedOutcome(order, now, platform);
      if (report === 'ongoing')
        return void (await ports.orders.write(order, { set: { call_deadline_at: new Date(now.getTime() + ONGOING_CALL_RETRY_MS).toISOString() } }, now));
      // Whatever it became, the call is over: its place among the calls in flight is free.
      if (platform && platform !== ports.callPlatforms.sandbox) await ports.callSlots?.release(attemptKeyOf(order));
      return recordAttempt(ports, order, report, now, facts);
    }
    default:
      return undefined;
  }
}

/** The order stays scheduled and its call is looked at again in `ms`. */
async function deferCall(ports: ProcessingPorts, order: StoredOrder, now: Date, ms: number): Promise<undefined> {
  await ports.orders.write(order, { set: { next_contact_at: new Date(now.getTime() + ms).toISOString() } }, now);
  return undefined;
}

async function startAttempt(ports: ProcessingPorts, order: StoredOrder, now: Date, facts: Facts): Promise<StoredOrder | undefined> {
  if (facts.config.status === 'suspended') {
    // A suspended tenant's customers are not called: its orders wait, scheduled, and are
    // called once it is active again (the status read is at most AUTH_CACHE_SECONDS old).
    return deferCall(ports, order, now, SUSPENDED_RETRY_MS);
  }
  const q = qualificationOf(order, facts);
  if (awaitingVariantIndex(ports, order, q, now)) {
    // Stays scheduled and is called once the variant is indexed (or rejected when the grace ends).
    return deferCall(ports, order, now, QUALIFICATION_RETRY_MS);
  }
  if (!q.qualified)
    return ports.orders.write(order, { to: 'rejected', reason: q.reason, set: { next_contact_at: null, ...rejectionFields(order, q.reason) } }, now);
  // Due is not callable: an order dialled late (a backlog, a retry at the edge of the window) waits for the market's next calling hour.
  const window = callingWindow(facts.config, facts.customer);
  if (window && !isCallable(now, window)) return deferCall(ports, order, now, nextContactAt(now, window).getTime() - now.getTime());
  const platform = platformFor(ports.callPlatforms, facts.config.mode);
  if (!platform) {
    // A live tenant on a deployment without a live platform (its configuration is refused, so
    // only an older one gets here): its customers are never called by the simulation; the order waits.
    logger.error('no call platform for a live tenant; its calls wait', { tenant: order.tenant });
    return deferCall(ports, order, now, SUSPENDED_RETRY_MS);
  }
  // Without a place in the dial rate, the order stays scheduled for the next second.
  const attempt = order.call_attempts + 1;
  const key = { tenant: order.tenant, external_order_id: order.external_order_id, attempt };
  if (!(await dialAdmitted(ports, platform, key, now))) return deferCall(ports, order, now, untilNextSecond(now));
  const inCall = await ports.orders.write(
    order,
    {
      to: 'in_call',
      set: {
        call_attempts: attempt,
        next_contact_at: null,
        substitutions: q.substitutions,
        call_deadline_at: new Date(now.getTime() + platform.stuckAfterSeconds * 1000).toISOString(),
      },
    },
    now,
  );
  // The dial is claimed on the order just before it: a cancel or an erasure that landed after
  // the in_call write wins, and no one is called (a claim lost otherwise is a stuck call, retried).
  const claimed = await claimOrUndefined(() => ports.orders.write(inCall, { set: { dialing: attempt } }, now));
  return claimed && dial(ports, platform, claimed, now, facts);
}

/** States from which a step may start a call: whatever the run decided before must be durable first. */
const mayStartCall = (state: OrderState) => state === 'scheduled' || state === 'in_call';

/**
 * Takes the order as far as it can go now. Safe to call any number of times, concurrently.
 * Says whether it asked the dial rate and what it answered: a dial placed, or the order waits
 * (it stays due the next second).
 */
export async function advanceOrder(ports: ProcessingPorts, tenant: string, id: string, now: () => Date = () => new Date()): Promise<{ dialRate?: DialClaim }> {
  const outcome: { dialRate?: DialClaim } = {};
  // A run may ask more than once (a throttled redial): a refusal is what it says.
  const note = (claim: DialClaim) => {
    if (outcome.dialRate === undefined || outcome.dialRate === 'placed') outcome.dialRate = claim;
  };
  const { dialRate, callSlots } = ports;
  if (dialRate) {
    ports = {
      ...ports,
      dialRate: async (at, dialling) => {
        const claim = await dialRate(at, dialling);
        note(claim);
        return claim;
      },
    };
  }
  if (callSlots) {
    ports = {
      ...ports,
      callSlots: {
        release: callSlots.release,
        claim: async (key, at) => {
          const claim = await callSlots.claim(key, at);
          if (claim !== 'claimed') note(claim);
          return claim;
        },
      },
    };
  }
  await advanceAsFarAsItGoes(ports, tenant, id, now);
  return outcome;
}

async function advanceAsFarAsItGoes(ports: ProcessingPorts, tenant: string, id: string, now: () => Date): Promise<void> {
  // The facts are read once per run: the steps of one run follow each other within moments.
  let facts: Promise<Facts> | undefined;
  const factsOf = (order: StoredOrder) => (facts ??= factsFor(ports, order));
  const pending = pendingChanges(ports.orders);
  const deferred = { ...ports, orders: pending.repository };
  let order = await ports.orders.read(tenant, id);
  for (let steps = 0; steps < 20 && order; steps++) {
    try {
      if (isFinal(order.processing_state) || mayStartCall(order.processing_state)) order = (await pending.flush()) ?? order;
      if (isFinal(order.processing_state)) return void (await recordUnreportedCall(ports, order, now()));
      const written = await step(mayStartCall(order.processing_state) ? ports : deferred, order, now(), factsOf);
      if (!written) {
        await pending.flush();
        return;
      }
      // `in_call` is written at once, before the dial: the attempt's outcome comes from elsewhere.
      if (written.processing_state === 'in_call') return;
      order = written;
    } catch (error) {
      if (!(error instanceof RevisionConflict)) throw error;
      pending.discard();
      order = await ports.orders.read(tenant, id);
    }
  }
  await pending.flush();
}

/** The processing functions bound to their ports, as a composition root hands them out. */
export function orderProcessing(ports: ProcessingPorts) {
  return {
    ports,
    requalify: (order: StoredOrder, now?: Date) => requalify(ports, order, now),
    advanceOrder: (tenant: string, id: string, now?: () => Date) => advanceOrder(ports, tenant, id, now),
    /** A platform's late report of an attempt (a live call's end), recorded once. */
    reportAttempt: (key: AttemptKey, report: AttemptReport, now = new Date()) => reportAttempt(ports, key, report, now),
    /** What an attempt's call says, while its order is still in that call. */
    scriptOf: (key: AttemptKey) => attemptScript(ports, key),
  };
}
export type OrderProcessing = ReturnType<typeof orderProcessing>;
