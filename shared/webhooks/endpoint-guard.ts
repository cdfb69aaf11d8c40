/**
 * What keeps one tenant's endpoint from holding the sender that every tenant shares: at most
 * ENDPOINT_SLOTS attempts at once to an endpoint that is not known to be fast, and a circuit breaker. After BREAKER_THRESHOLD
 * consecutive failed attempts (timeouts included) the endpoint is paused as a whole: its
 * deliveries wait without spending attempts. When the pause ends, one attempt probes it; a
 * success closes the breaker, a failure pauses it again for twice as long (at most 10 min).
 *
 * The state lives on the subscription item (read by every attempt already): `leases`, a string
 * set with one element per attempt under way (its lease's end in base-36 milliseconds and a
 * random id: 17 characters, so 20 of them keep the item under 1 KB, one write unit),
 * `failed_attempts`, `paused_until` and `pauses`. The run of failures is a string set with an id
 * per failed attempt, not a number: adding the same id twice leaves it as it was, so a retried
 * write counts its failure once whatever landed between (an `ADD` of 1 would count it twice).
 * Opening the breaker empties it, so it holds at most BREAKER_THRESHOLD + ENDPOINT_SLOTS ids. A claim adds its own element while the
 * set holds fewer than ENDPOINT_SLOTS, so claims never race for a named slot: one is refused
 * only when the endpoint is full. An element outlives its attempt only when the attempt died;
 * a claim refused for a full set removes the expired ones and tries once more.
 *
 * A fast endpoint needs no slots: an attempt that answers within SLOW_ATTEMPT_MS holds a
 * sender for no longer than the writes around it, and the largest tenant's endpoint takes
 * more than a thousand deliveries a second, which two writes each on its one subscription item
 * would throttle. So a success within SLOW_ATTEMPT_MS marks the endpoint fast (`fast_until`,
 * renewed by each sender instance at most once every half FAST_FOR_SECONDS), and while it is,
 * each sender instance makes up to UNGUARDED_PER_INSTANCE attempts to it at once without a
 * slot (more take slots), and a healthy delivery writes nothing here. An attempt to a fast
 * endpoint that has not answered after SLOW_ATTEMPT_MS ends the mark (`endpointSlow`): from
 * then on its attempts take slots again. A new endpoint, and one that hangs from the start,
 * never has the mark.
 */
import { randomBytes } from 'node:crypto';
import { ENDPOINT_SLOTS } from '../api/limits.ts';
import { tableName } from '../storage/clients.ts';
import { landed, writeConditionally } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';

export { ENDPOINT_SLOTS };
export const BREAKER_THRESHOLD = 5;
export const FIRST_PAUSE_SECONDS = 30;
export const LONGEST_PAUSE_SECONDS = 600;

export interface EndpointState {
  /** One id per failed attempt since the last success or the last opening of the breaker. */
  failed_attempts?: ReadonlySet<string>;
  paused_until?: string;
  pauses?: number;
  /** The leases of the attempts under way: `<lease end, ms in base 36>#<id>`. */
  leases?: ReadonlySet<string>;
  /** Until when the endpoint counts as fast: its attempts need no slot. */
  fast_until?: string;
  /** Since when every attempt has failed (set by a failure, removed by a success). */
  failing_since?: string;
}

/** An attempt still unanswered after this long holds a sender: its endpoint is slow (scaled with the sender's timeouts). */
export const SLOW_ATTEMPT_MS = 1_000;
/** How long one fast answer vouches for the endpoint. */
export const FAST_FOR_SECONDS = 60;
/** Attempts one sender instance makes at once, without a slot, to one fast endpoint. */
export const UNGUARDED_PER_INSTANCE = 4;

/** Whether the endpoint counts as fast now: its attempts need no slot, and one that keeps them waiting is slow. */
export const countsAsFast = (s: EndpointState, now: Date) => s.fast_until !== undefined && Date.parse(s.fast_until) > now.getTime();
/** Half of FAST_FOR_SECONDS: a mark half spent is renewed, and an instance renews or ends it at most this often. */
const HALF_FAST_WINDOW_MS = (FAST_FOR_SECONDS * 1000) / 2;
/** This instance's attempts under way without a slot, per tenant. */
const unguarded = new Map<string, number>();
/** An attempt without a slot is over (settled, or given back unmade). */
const unguardedEnded = (tenant: string) => unguarded.set(tenant, Math.max(0, (unguarded.get(tenant) ?? 1) - 1));
/** When this instance last renewed, or ended, an endpoint's fast mark: once per half FAST_FOR_SECONDS at most. */
const fastMarked = new Map<string, number>();
const slowMarked = new Map<string, number>();

export type BreakerState = 'closed' | 'open' | 'half_open';

/** Open while paused; half open once the pause has passed and no success has closed it yet. */
export function breakerState(s: EndpointState, now: Date): BreakerState {
  if (!s.paused_until) return 'closed';
  return Date.parse(s.paused_until) > now.getTime() ? 'open' : 'half_open';
}

/** The pause after the breaker opened `pauses` times in a row, in seconds (at least 1 s however scaled). */
export const pauseSeconds = (pauses: number, scale = 1): number =>
  Math.max(1, Math.min(LONGEST_PAUSE_SECONDS, FIRST_PAUSE_SECONDS * 2 ** Math.max(0, pauses - 1)) * scale);

export type SlotClaim = { kind: 'slot'; lease: string } | { kind: 'unguarded' } | { kind: 'wait'; reason: 'paused' | 'busy'; seconds: number };

/** Every slot taken: look again in a moment (jittered, so the waiting deliveries do not all come back at once). */
export const endpointBusy = (): SlotClaim => ({ kind: 'wait', reason: 'busy', seconds: 1 + Math.random() * 2 });

/** A lease element: when it ends, and an id of its own. */
export const leaseElement = (endsAt: Date) => `${endsAt.getTime().toString(36)}#${randomBytes(6).toString('base64url')}`;
/** Whether the lease has ended by `now`. */
const ended = (lease: string, now: Date) => Number.parseInt(lease.slice(0, lease.indexOf('#')), 36) < now.getTime();

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

/**
 * A slot for one attempt, or how long to wait: while the breaker is open, until its pause
 * ends; while every slot is leased (or another sender probes a half-open breaker), a moment.
 * A half-open breaker's slot also moves the pause on by the lease, so one attempt probes.
 * An endpoint the attempt's read shows full costs no write; a fast one (with its breaker
 * closed) is attempted without a slot, up to UNGUARDED_PER_INSTANCE at once per instance.
 */
export async function claimSlot(tenant: string, s: EndpointState, now: Date, leaseSeconds: number): Promise<SlotClaim> {
  const state = breakerState(s, now);
  if (state === 'open') {
    // Spread over up to twice the rest of the pause: the waiting deliveries do not all come back at once.
    const rest = (Date.parse(s.paused_until!) - now.getTime()) / 1000;
    return { kind: 'wait', reason: 'paused', seconds: rest * (1 + Math.random()) };
  }
  if (state === 'closed' && countsAsFast(s, now) && (unguarded.get(tenant) ?? 0) < UNGUARDED_PER_INSTANCE) {
    unguarded.set(tenant, (unguarded.get(tenant) ?? 0) + 1);
    return { kind: 'unguarded' };
  }
  const busy = endpointBusy();
  if ([...(s.leases ?? [])].filter((l) => !ended(l, now)).length >= ENDPOINT_SLOTS) return busy;
  const endsAt = new Date(now.getTime() + leaseSeconds * 1000);
  const lease = leaseElement(endsAt);
  // A half-open breaker's probe also moves the pause on, and only while no other probe did.
  const probe = state === 'half_open';
  const claim = () =>
    writeConditionally({
      update: {
        TableName: tableName(),
        Key: keys.webhookSubscription(tenant),
        UpdateExpression: `ADD #leases :mine${probe ? ' SET paused_until = :end' : ''}`,
        ConditionExpression: `attribute_exists(pk) AND (attribute_not_exists(#leases) OR size(#leases) < :slots) AND ${probe ? 'paused_until = :seen' : 'attribute_not_exists(paused_until)'}`,
        ExpressionAttributeNames: { '#leases': 'leases' },
        ExpressionAttributeValues: {
          ':mine': new Set([lease]),
          ':slots': ENDPOINT_SLOTS,
          ...(probe ? { ':end': endsAt.toISOString(), ':seen': s.paused_until } : {}),
        },
      },
    });
  const first = await claim();
  if (first.written) return { kind: 'slot', lease };
  const stood = first.item as EndpointState | undefined;
  if (probe || !stood || breakerState(stood, now) !== 'closed') return busy;
  // Full: with the leases of attempts that died gone, it may not be.
  const expired = [...(stood.leases ?? [])].filter((l) => ended(l, now));
  if (expired.length === 0) return busy;
  await update(tenant, 'DELETE #leases :expired', 'attribute_exists(#leases)', { ':expired': new Set(expired) }, { '#leases': 'leases' });
  return (await claim()).written ? { kind: 'slot', lease } : busy;
}

/** What a settled attempt was: whether it delivered, and how long it took. */
export interface AttemptSummary {
  delivered: boolean;
  latencyMs: number;
  /** SLOW_ATTEMPT_MS as the sender's timeouts are scaled. */
  slowAfterMs: number;
}

/**
 * Gives the slot back and counts the attempt: a success closes the breaker (and ends
 * `failing_since`) and, answered within SLOW_ATTEMPT_MS, marks the endpoint fast; a failure
 * adds to the run of failures (and starts `failing_since`), and the BREAKER_THRESHOLD-th (or a
 * failed probe) pauses the endpoint. A healthy, fast endpoint's success writes nothing.
 * Returns the breaker's state after the attempt.
 */
export async function settleSlot(
  tenant: string,
  s: EndpointState,
  /** The attempt's slot; none when it went ahead without one (it waited its turns already). */
  claim: { lease: string } | { kind: 'unguarded' } | undefined,
  attempt: AttemptSummary | boolean,
  now: Date,
  pauseScale = 1,
): Promise<BreakerState> {
  // A bare boolean says whether it delivered, its timing unknown: it never marks the endpoint fast.
  const { delivered, latencyMs, slowAfterMs } =
    typeof attempt === 'boolean' ? { delivered: attempt, latencyMs: Number.POSITIVE_INFINITY, slowAfterMs: SLOW_ATTEMPT_MS } : attempt;
  const lease = claim && 'lease' in claim ? claim.lease : undefined;
  if (claim && !lease) unguardedEnded(tenant);
  // The lease and the failure are this attempt's own elements: a retried write adds or takes
  // back the same element, so it counts once whatever other attempts wrote between the two.
  const write = async (sets: string[], removes: string[], adds: string[], values: Record<string, unknown> = {}) => {
    const clauses = [
      sets.length ? `SET ${sets.join(', ')}` : '',
      removes.length ? `REMOVE ${removes.join(', ')}` : '',
      adds.length ? `ADD ${adds.join(', ')}` : '',
      lease ? 'DELETE #leases :mine' : '',
    ].filter(Boolean);
    if (clauses.length === 0) return undefined;
    const written = await writeConditionally({
      update: {
        TableName: tableName(),
        Key: keys.webhookSubscription(tenant),
        UpdateExpression: clauses.join(' '),
        ConditionExpression: 'attribute_exists(pk)',
        // DynamoDB refuses a name the expression does not use.
        ...(lease ? { ExpressionAttributeNames: { '#leases': 'leases' } } : {}),
        // Nor does it take an empty map of values.
        ...(Object.keys(values).length || lease ? { ExpressionAttributeValues: { ...values, ...(lease ? { ':mine': new Set([lease]) } : {}) } } : {}),
        ReturnValues: 'ALL_NEW',
      },
    });
    return written.item as EndpointState | undefined;
  };
  if (delivered) {
    const toClear = (s.failed_attempts?.size ?? 0) > 0 || s.paused_until !== undefined || s.pauses !== undefined || s.failing_since !== undefined;
    const renew = latencyMs < slowAfterMs && fastMarkDue(tenant, s, now);
    const fastUntil = new Date(now.getTime() + FAST_FOR_SECONDS * 1000).toISOString();
    await write(
      renew ? ['fast_until = :fast'] : [],
      toClear ? ['failed_attempts', 'paused_until', 'pauses', 'failing_since'] : [],
      [],
      renew ? { ':fast': fastUntil } : {},
    );
    if (renew) fastMarked.set(tenant, now.getTime());
    return 'closed';
  }
  const counted = await write(['failing_since = if_not_exists(failing_since, :at)'], [], ['failed_attempts :failure'], {
    ':failure': new Set([randomBytes(6).toString('base64url')]),
    ':at': now.toISOString(),
  });
  const probeFailed = breakerState(s, now) === 'half_open';
  // Paused already by another attempt's failure: attempts that were under way add no pause.
  if (!probeFailed && counted?.paused_until) return 'open';
  if (!probeFailed && (counted?.failed_attempts?.size ?? 0) < BREAKER_THRESHOLD) return 'closed';
  const pauses = (counted?.pauses ?? 0) + 1;
  const until = new Date(now.getTime() + pauseSeconds(pauses, pauseScale) * 1000).toISOString();
  const seen = counted?.paused_until;
  await update(
    tenant,
    'SET paused_until = :until, pauses = :pauses REMOVE failed_attempts, fast_until',
    seen ? 'paused_until = :seen' : 'attribute_not_exists(paused_until)',
    {
      ':until': until,
      ':pauses': pauses,
      ...(seen ? { ':seen': seen } : {}),
    },
  );
  return 'open';
}

/** Whether this instance renews the endpoint's fast mark now: it is missing or half spent, and this instance has not renewed it lately. */
function fastMarkDue(tenant: string, s: EndpointState, now: Date): boolean {
  if (s.fast_until && Date.parse(s.fast_until) - now.getTime() > HALF_FAST_WINDOW_MS) return false;
  return now.getTime() - (fastMarked.get(tenant) ?? 0) > HALF_FAST_WINDOW_MS;
}

/**
 * An attempt to a fast endpoint has not answered within SLOW_ATTEMPT_MS: the endpoint's
 * attempts take slots again. Once per instance and window, and only while the mark is the
 * one the attempt saw, so many slow attempts at once write it about once.
 */
export async function endpointSlow(tenant: string, s: EndpointState, now: Date): Promise<void> {
  if (!s.fast_until || now.getTime() - (slowMarked.get(tenant) ?? 0) < HALF_FAST_WINDOW_MS) return;
  slowMarked.set(tenant, now.getTime());
  fastMarked.delete(tenant);
  await update(tenant, 'REMOVE fast_until', 'fast_until = :seen', { ':seen': s.fast_until });
}

/** Gives back a slot that made no attempt (the delivery was finished or held elsewhere). */
export async function releaseSlot(tenant: string, claim: { lease: string } | { kind: 'unguarded' }): Promise<boolean> {
  if (!('lease' in claim)) {
    unguardedEnded(tenant);
    return true;
  }
  return update(
    tenant,
    'DELETE #leases :mine',
    'contains(#leases, :lease)',
    { ':mine': new Set([claim.lease]), ':lease': claim.lease },
    { '#leases': 'leases' },
  );
}
