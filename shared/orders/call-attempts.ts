/**
 * A call attempt from its dial to its record: placing the claimed attempt's call (and dialling a
 * throttled one again as the same attempt), recording a finished call once, a platform's late
 * report of one, and what became of an attempt whose report never came.
 */
import { type AttemptKey, type AttemptReport, type CallPlatform, DialOverQuota, DialRefused, DialThrottled, platformFor } from '../calls/call-platform.ts';
import type { DialogScript } from '../calls/dialog.ts';
import { RevisionConflict } from '../errors.ts';
import { retryOnRevisionConflict } from '../storage/revision-retry.ts';
import { attemptCounts, attemptOutcome } from './call-outcome.ts';
import { callRecords } from './call-records.ts';
import { callScript } from './call-script.ts';
import { marketOf } from './destination.ts';
import { type Facts, factsFor } from './facts.ts';
import type { StoredOrder } from './order.ts';
import { lastStatus, recordsAttempt } from './order-log.ts';
import type { ProcessingPorts } from './processing-ports.ts';
import { effectiveLines } from './snapshot.ts';
import { isFinal } from './state-machine.ts';

/** A dial the rate or the platform refused is tried again this soon. */
export const REDIAL_MS = 1_000;
/** A dial the platform refused for its calls in flight (another user of the instance holds them) waits this long for one to end. */
export const OVER_QUOTA_REDIAL_MS = 5_000;
/** A dial the rate refused waits for the next second, when the rate has places again. */
export const untilNextSecond = (now: Date): number => 1_000 - (now.getTime() % 1_000);
/** A call still running at its deadline (the platform says so) is looked at again this soon. */
export const ONGOING_CALL_RETRY_MS = 60_000;

/** Writes unless another writer got there first (undefined then). */
export const claimOrUndefined = (write: () => Promise<StoredOrder>): Promise<StoredOrder | undefined> =>
  write().catch((error: unknown) => {
    if (error instanceof RevisionConflict) return undefined;
    throw error;
  });

export const attemptKeyOf = (order: StoredOrder): AttemptKey => ({
  tenant: order.tenant,
  external_order_id: order.external_order_id,
  attempt: order.call_attempts,
});

/** What a dial answered that is not a call: refused for now (the rate, the calls in flight), or refused for good (the destination). */
type DialRefusal = 'throttled' | 'over_quota' | 'refused';
const refusalOf = (error: unknown): DialRefusal | undefined =>
  error instanceof DialThrottled ? 'throttled' : error instanceof DialOverQuota ? 'over_quota' : error instanceof DialRefused ? 'refused' : undefined;

/**
 * Places the claimed attempt's call. A platform that reports later leaves the order in_call; a
 * cancel that raced the dial (it found no call to end yet) is caught right after it returns. A
 * dial refused for now dialled nothing: the same attempt is dialled again shortly (the rate) or
 * once a call may have ended (the calls in flight), never counted twice. A destination the
 * platform refuses ends the order at once, with one failed attempt (contract-decisions section 11).
 */
export async function dial(ports: ProcessingPorts, platform: CallPlatform, claimed: StoredOrder, now: Date, facts: Facts): Promise<StoredOrder | undefined> {
  const lines = effectiveLines(claimed.items, claimed.substitutions, facts.variants);
  const key = attemptKeyOf(claimed);
  const report = await platform
    .startAttempt(
      {
        ...key,
        external_customer_id: claimed.external_customer_id,
        phone: facts.customer!.phone!,
        script: callScript(claimed, facts, lines),
        market: marketOf(facts.config, facts.customer)?.country,
      },
      now,
    )
    .catch((error: unknown) => {
      const refusal = refusalOf(error);
      if (refusal) return refusal;
      throw error;
    });
  if (report === 'throttled' || report === 'over_quota' || report === 'refused') await releaseCallSlot(ports, platform, key);
  if (report === 'throttled' || report === 'over_quota') {
    const redialAt = new Date(now.getTime() + (report === 'throttled' ? REDIAL_MS : OVER_QUOTA_REDIAL_MS)).toISOString();
    await claimOrUndefined(() => ports.orders.write(claimed, { set: { redial_at: redialAt } }, now));
    return undefined;
  }
  if (report === 'refused') {
    const at = now.toISOString();
    return recordFinishedCall(ports, claimed, { call_disposition: 'failed', started_at: at, ended_at: at, refused: 'destination_not_allowed' }, now, facts);
  }
  if (report !== 'pending') return recordFinishedCall(ports, claimed, report, now, facts);
  const current = await ports.orders.read(claimed.tenant, claimed.external_order_id);
  if (current && isFinal(current.processing_state)) await platform.cancel(key);
  return claimed;
}

/** A live call's place, given back: its end is recorded, or it was never placed. */
const releaseCallSlot = async (ports: ProcessingPorts, platform: CallPlatform | undefined, key: AttemptKey) => {
  if (platform && platform !== ports.callPlatforms.sandbox) await ports.callSlots?.release(key);
};

/**
 * What an attempt's call says, read when the platform plays it (a live call's every turn):
 * undefined unless the order is still in this attempt's call, so a cancel or an erasure that
 * landed since the dial places no conversation.
 */
export async function attemptScript(ports: ProcessingPorts, key: AttemptKey): Promise<DialogScript | undefined> {
  const order = await ports.orders.read(key.tenant, key.external_order_id);
  if (order?.processing_state !== 'in_call' || order.call_attempts !== key.attempt) return undefined;
  const facts = await factsFor(ports, order);
  return callScript(order, facts, effectiveLines(order.items, order.substitutions, facts.variants));
}

/**
 * Whether the attempt's dial of `platform` may go now: a live dial takes a place for its call
 * (the calls in flight), then its place in the deployment's dial rate, and gives the first back
 * when the second is refused; a simulated one needs neither.
 */
export async function dialAdmitted(ports: ProcessingPorts, platform: CallPlatform, key: AttemptKey, now: Date): Promise<boolean> {
  if (platform === ports.callPlatforms.sandbox) return true;
  if (ports.callSlots && (await ports.callSlots.claim(key, now)) !== 'claimed') return false;
  if (!ports.dialRate || (await ports.dialRate(now, key.tenant)) === 'placed') return true;
  await ports.callSlots?.release(key);
  return false;
}

/** A refused attempt's next dial: claimed by clearing `redial_at` (one run wins), then dialled as the same attempt. */
export async function redial(ports: ProcessingPorts, order: StoredOrder, now: Date, facts: Facts): Promise<StoredOrder | undefined> {
  const platform = platformFor(ports.callPlatforms, facts.config.mode);
  if (!platform) return undefined;
  if (!(await dialAdmitted(ports, platform, attemptKeyOf(order), now))) {
    await ports.orders.write(order, { set: { redial_at: new Date(now.getTime() + untilNextSecond(now)).toISOString() } }, now);
    return undefined;
  }
  const deadline = new Date(now.getTime() + platform.stuckAfterSeconds * 1000).toISOString();
  const claimed = await claimOrUndefined(() => ports.orders.write(order, { set: { redial_at: undefined, call_deadline_at: deadline } }, now));
  return claimed && dial(ports, platform, claimed, now, facts);
}

/**
 * What became of an attempt whose report never came: what the platform says (a platform that
 * reports later can be asked), else `failed`, which does not count against the customer.
 */
export async function unreportedOutcome(order: StoredOrder, now: Date, platform: CallPlatform | undefined): Promise<AttemptReport | 'ongoing'> {
  const failed: AttemptReport = { call_disposition: 'failed', started_at: order.updated_at, ended_at: now.toISOString() };
  // A throttled dial that was never placed has nothing to ask about.
  if (order.redial_at || !platform?.outcomeOf) return failed;
  return (await platform.outcomeOf(attemptKeyOf(order), now)) ?? failed;
}

/**
 * A platform's late report of an attempt (a live call's end, from the platform's events): recorded
 * once, whatever the order became meanwhile. A report that comes again, late, or for an attempt
 * already recovered at its deadline changes nothing.
 */
export async function reportAttempt(ports: ProcessingPorts, key: AttemptKey, report: AttemptReport, now: Date): Promise<void> {
  await recordReport(ports, key, report, now);
  // The call ended and is recorded: its place among the calls in flight is free (a report that comes again frees nothing more).
  await ports.callSlots?.release(key);
}

async function recordReport(ports: ProcessingPorts, key: AttemptKey, report: AttemptReport, now: Date): Promise<void> {
  const order = await ports.orders.read(key.tenant, key.external_order_id);
  if (!order || order.call_attempts < key.attempt || recordsAttempt(order.log, key.attempt)) return;
  if (order.processing_state === 'in_call' && order.call_attempts === key.attempt) {
    await recordFinishedCall(ports, order, report, now);
    return;
  }
  // Made final during the call (a cancel, an erasure): the attempt joins its log with its report.
  if (isFinal(order.processing_state) && order.call_attempts === key.attempt && order.call_deadline_at) {
    const inCall = { ...order, status_revision: lastStatus(order.log, 'in_call')?.revision ?? order.status_revision };
    await ports.orders.write(order, { set: { call_deadline_at: null }, calls: callRecords(inCall, report) }, now);
  }
}

/**
 * Records a call that ended. A partner may cancel while it runs (the order is cancelled at
 * once, as the contract says), and an erasure rejects the order: the call's attempt and its
 * event are still kept with the order, whatever it became, so its history says what happened
 * to the customer. Each attempt is its own item, written once: a report that comes again
 * changes nothing.
 */
export async function recordFinishedCall(ports: ProcessingPorts, inCall: StoredOrder, report: AttemptReport, now: Date, facts?: Facts): Promise<StoredOrder> {
  try {
    return await recordAttempt(ports, inCall, report, now, facts);
  } catch (error) {
    if (!(error instanceof RevisionConflict)) throw error;
    return retryOnRevisionConflict(async () => {
      const current = await ports.orders.read(inCall.tenant, inCall.external_order_id);
      if (!current) throw error;
      if (current.processing_state === 'in_call' && current.call_attempts === inCall.call_attempts) return recordAttempt(ports, current, report, now, facts);
      if (recordsAttempt(current.log, inCall.call_attempts)) return current;
      return ports.orders.write(current, { set: { call_deadline_at: null }, calls: callRecords(inCall, report) }, now);
    });
  }
}

/**
 * A call the order became final during (a cancel, an erasure) whose report was never recorded:
 * the run that had it failed, or was killed, after the attempt item went ahead of the order's
 * write, and a final order is never advanced again. At the call's deadline its attempt goes
 * into the order's log, as failed unless its item (which keeps the first report) says
 * otherwise, so the attempt's event is published; the order leaves the call scheduler.
 */
export async function recordUnreportedCall(ports: ProcessingPorts, order: StoredOrder, now: Date): Promise<void> {
  if (!order.call_deadline_at || Date.parse(order.call_deadline_at) > now.getTime()) return;
  if (recordsAttempt(order.log, order.call_attempts)) {
    await ports.orders.write(order, { set: { call_deadline_at: null } }, now);
    return;
  }
  const platform = platformFor(ports.callPlatforms, (await ports.tenantConfigOf(order.tenant)).mode);
  const unreported = await unreportedOutcome(order, now, platform);
  if (unreported === 'ongoing') {
    await ports.orders.write(order, { set: { call_deadline_at: new Date(now.getTime() + ONGOING_CALL_RETRY_MS).toISOString() } }, now);
    return;
  }
  await releaseCallSlot(ports, platform, attemptKeyOf(order));
  const inCall = { ...order, status_revision: lastStatus(order.log, 'in_call')?.revision ?? order.status_revision };
  await ports.orders.write(order, { set: { call_deadline_at: null }, calls: callRecords(inCall, unreported) }, now);
}

/**
 * Records a finished attempt: the attempt item and its event, and either the result (the
 * order completes, with `result_ready`) or the next attempt's contact time.
 */
export async function recordAttempt(ports: ProcessingPorts, order: StoredOrder, report: AttemptReport, now: Date, known?: Facts): Promise<StoredOrder> {
  const facts = known ?? (await factsFor(ports, order));
  const { to, result, nextContact } = attemptOutcome(order, report, facts, now, ports.settings.callRetryDelaySeconds);
  const reason = report.refused ?? (result ? result.business_outcome : report.call_disposition);
  const calls = callRecords(order, report, result, facts.config.writeback.enabled);
  const lost = report.call_disposition === 'failed' ? { lost_attempts: attemptCounts(order, report).lost } : {};
  return ports.orders.write(order, { to, reason, set: { next_contact_at: nextContact, call_deadline_at: null, ...lost }, calls }, now);
}
