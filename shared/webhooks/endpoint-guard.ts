/**
 * What keeps one tenant's endpoint from holding the sender that every tenant shares: at most
 * ENDPOINT_SLOTS attempts to an endpoint at once, and a circuit breaker. After BREAKER_THRESHOLD
 * consecutive failed attempts (timeouts included) the endpoint is paused as a whole: its
 * deliveries wait without spending attempts. When the pause ends, one attempt probes it; a
 * success closes the breaker, a failure pauses it again for twice as long (at most 10 min).
 *
 * The state lives on the subscription item (read by every attempt already): slot leases
 * `slot_0`…, `consecutive_failures`, `paused_until` and `pauses`.
 */
import { tableName } from '../storage/clients.ts';
import { landed, writeConditionally } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';

export const ENDPOINT_SLOTS = 20;
/** Conditional writes one claim makes at most: a pick from the attempt's read, one from the state its refusal answered. */
export const CLAIM_TRIES = 2;
export const BREAKER_THRESHOLD = 5;
export const FIRST_PAUSE_SECONDS = 30;
export const LONGEST_PAUSE_SECONDS = 600;

export interface EndpointState {
  consecutive_failures?: number;
  paused_until?: string;
  pauses?: number;
  [slot: `slot_${number}`]: string | undefined;
}

export type BreakerState = 'closed' | 'open' | 'half_open';

/** Open while paused; half open once the pause has passed and no success has closed it yet. */
export function breakerState(s: EndpointState, now: Date): BreakerState {
  if (!s.paused_until) return 'closed';
  return Date.parse(s.paused_until) > now.getTime() ? 'open' : 'half_open';
}

/** The pause after the breaker opened `pauses` times in a row, in seconds (at least 1 s however scaled). */
export const pauseSeconds = (pauses: number, scale = 1): number =>
  Math.max(1, Math.min(LONGEST_PAUSE_SECONDS, FIRST_PAUSE_SECONDS * 2 ** Math.max(0, pauses - 1)) * scale);

export type SlotClaim = { kind: 'slot'; slot: number; lease: string } | { kind: 'wait'; reason: 'paused' | 'busy'; seconds: number };

const update = (tenant: string, expression: string, condition: string, values: Record<string, unknown>, names?: Record<string, string>) =>
  landed({
    update: {
      TableName: tableName(),
      Key: keys.webhookSubscription(tenant),
      UpdateExpression: expression,
      ConditionExpression: `attribute_exists(pk) AND ${condition}`,
      ExpressionAttributeValues: values,
      ...(names ? { ExpressionAttributeNames: names } : {}),
    },
  });

/** The slots whose lease is free (never taken, or run out) in `s` at `now`, in random order: senders rarely meet on one. */
const freeSlots = (s: EndpointState, now: Date) =>
  Array.from({ length: ENDPOINT_SLOTS }, (_, slot) => slot)
    .filter((slot) => !s[`slot_${slot}`] || s[`slot_${slot}`]! < now.toISOString())
    .sort(() => Math.random() - 0.5);

/**
 * A slot for one attempt, or how long to wait: while the breaker is open, until its pause
 * ends; while every slot is leased (or another sender probes a half-open breaker), a moment.
 * A half-open breaker's slot also moves the pause on by the lease, so one attempt probes.
 * A refused claim answers the endpoint's state as it now stands, and the one further try picks
 * from that, not from the state the attempt read. One, because under contention slots change
 * hands every few milliseconds: a sender that kept trying while the answers showed a free slot
 * raced the others for each (245 refused writes per order of seven deliveries in the orders
 * suite), and the message put back to wait its turn costs no write.
 */
export async function claimSlot(tenant: string, s: EndpointState, now: Date, leaseSeconds: number): Promise<SlotClaim> {
  const state = breakerState(s, now);
  if (state === 'open') {
    // Spread over up to twice the rest of the pause: the waiting deliveries do not all come back at once.
    const rest = (Date.parse(s.paused_until!) - now.getTime()) / 1000;
    return { kind: 'wait', reason: 'paused', seconds: rest * (1 + Math.random()) };
  }
  const lease = new Date(now.getTime() + leaseSeconds * 1000).toISOString();
  let current = s;
  for (let tries = 0; tries < CLAIM_TRIES; tries++) {
    const slot = freeSlots(current, now)[0];
    if (slot === undefined) break;
    const slotFree = '(attribute_not_exists(#slot) OR #slot < :now)';
    const claim = await writeConditionally({
      update: {
        TableName: tableName(),
        Key: keys.webhookSubscription(tenant),
        ...(state === 'half_open'
          ? {
              UpdateExpression: 'SET #slot = :lease, paused_until = :lease',
              ConditionExpression: `attribute_exists(pk) AND ${slotFree} AND paused_until = :seen`,
              ExpressionAttributeValues: { ':lease': lease, ':now': now.toISOString(), ':seen': s.paused_until },
            }
          : {
              UpdateExpression: 'SET #slot = :lease',
              ConditionExpression: `attribute_exists(pk) AND ${slotFree} AND attribute_not_exists(paused_until)`,
              ExpressionAttributeValues: { ':lease': lease, ':now': now.toISOString() },
            }),
        ExpressionAttributeNames: { '#slot': `slot_${slot}` },
      },
    });
    if (claim.written) return { kind: 'slot', slot, lease };
    // Another sender probes, or the breaker changed, or the subscription is gone: wait a moment.
    if (state === 'half_open' || !claim.item || breakerState(claim.item as EndpointState, now) !== 'closed') break;
    current = claim.item as EndpointState;
  }
  return { kind: 'wait', reason: 'busy', seconds: 1 + Math.random() * 2 };
}

/**
 * Gives the slot back and counts the attempt: a success closes the breaker; a failure adds to
 * the run of failures, and the BREAKER_THRESHOLD-th (or a failed probe) pauses the endpoint.
 * Returns the breaker's state after the attempt.
 */
export async function settleSlot(
  tenant: string,
  s: EndpointState,
  /** The attempt's slot; none when it went ahead without one (it waited its turns already). */
  claim: { slot: number; lease: string } | undefined,
  delivered: boolean,
  now: Date,
  pauseScale = 1,
): Promise<BreakerState> {
  // Through the one conditional write, so a retried write never counts a failure twice. A slot
  // whose lease ran out may be another attempt's now: it is left to that one.
  const write = async (expression: string, values: Record<string, unknown> = {}) => {
    const own =
      claim &&
      (await writeConditionally({
        update: {
          TableName: tableName(),
          Key: keys.webhookSubscription(tenant),
          UpdateExpression: `REMOVE #slot${expression.startsWith('REMOVE') ? `, ${expression.slice('REMOVE '.length)}` : ` ${expression}`}`,
          ConditionExpression: 'attribute_exists(pk) AND #slot = :lease',
          ExpressionAttributeNames: { '#slot': `slot_${claim.slot}` },
          ExpressionAttributeValues: { ...values, ':lease': claim.lease },
          ReturnValues: 'ALL_NEW',
        },
      }));
    if (own?.written) return own.item as EndpointState | undefined;
    const other = await writeConditionally({
      update: {
        TableName: tableName(),
        Key: keys.webhookSubscription(tenant),
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(pk)',
        ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
        ReturnValues: 'ALL_NEW',
      },
    });
    return other.item as EndpointState | undefined;
  };
  if (delivered) {
    await write('REMOVE consecutive_failures, paused_until, pauses');
    return 'closed';
  }
  const counted = await write('ADD consecutive_failures :one', { ':one': 1 });
  const probeFailed = breakerState(s, now) === 'half_open';
  if (!probeFailed && (counted?.consecutive_failures ?? 0) < BREAKER_THRESHOLD) return 'closed';
  // Paused already by another attempt's failure: attempts that were under way add no pause.
  if (!probeFailed && counted?.paused_until) return 'open';
  const pauses = (counted?.pauses ?? 0) + 1;
  const until = new Date(now.getTime() + pauseSeconds(pauses, pauseScale) * 1000).toISOString();
  const seen = counted?.paused_until;
  await update(tenant, 'SET paused_until = :until, pauses = :pauses', seen ? 'paused_until = :seen' : 'attribute_not_exists(paused_until)', {
    ':until': until,
    ':pauses': pauses,
    ...(seen ? { ':seen': seen } : {}),
  });
  return 'open';
}

/** Gives back a slot that made no attempt (the delivery was finished or held elsewhere). */
export function releaseSlot(tenant: string, claim: { slot: number; lease: string }): Promise<boolean> {
  return update(tenant, 'REMOVE #slot', '#slot = :lease', { ':lease': claim.lease }, { '#slot': `slot_${claim.slot}` });
}
