/**
 * The deployment's live calls in flight, at most `cap` at once: Amazon Connect's quota of
 * concurrent active calls per instance (10 by default, "Amazon Connect service quotas"), which
 * every tenant's calls share. A dial takes a place (a slot) before it claims its place in the
 * dial rate, and keeps it until its end is recorded; a place whose call was never recorded (a
 * crash, a lost event) frees itself when its lease, the platform's longest call, runs out.
 *
 * Tenants share the places as they share the dial rate: a tenant may take a free place only
 * while it holds fewer than its share, the cap divided among the tenants holding places and the
 * one asking. A tenant alone may use them all; a second one takes the next place that frees.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../storage/clients.ts';
import { landed } from '../storage/conditional.ts';
import { CALL_SLOTS, keys } from '../storage/keys.ts';
import { expiresAfter } from '../storage/ttl.ts';
import { type AttemptKey, attemptReference } from './call-platform.ts';

/** A place taken, or none: every place holds a call, or the tenant holds its share while another waits. */
export type SlotClaim = 'claimed' | 'calls_full' | 'behind_others';

export interface CallSlots {
  /** Takes a place for the attempt's call (taking it again for the same attempt keeps the one it has). */
  claim(attempt: AttemptKey, now: Date): Promise<SlotClaim>;
  /** Gives the attempt's place back: its call ended and is recorded, or was never placed. */
  release(attempt: AttemptKey): Promise<void>;
}

export interface HeldSlot {
  slot: number;
  holder: string;
  tenant: string;
}

/** Whether `tenant` may take one more place: below its share of `cap` among the tenants holding places and itself. */
export function withinSlotShare(held: readonly HeldSlot[], tenant: string, cap: number): boolean {
  const tenants = new Set([...held.map((h) => h.tenant), tenant]);
  const own = held.filter((h) => h.tenant === tenant).length;
  return own < Math.ceil(cap / tenants.size);
}

/** The lowest place not held, or undefined when every one is. */
export function freeSlot(held: readonly HeldSlot[], cap: number): number | undefined {
  const taken = new Set(held.map((h) => h.slot));
  for (let slot = 0; slot < cap; slot++) if (!taken.has(slot)) return slot;
  return undefined;
}

/** The places and their calls in the table; `leaseSeconds` the longest a call can hold one. */
export function dynamoCallSlots(cap: number, leaseSeconds: number): CallSlots {
  const heldAt = async (now: Date): Promise<HeldSlot[]> => {
    const { Items = [] } = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        // A lease that ran out frees its place whether or not TTL has deleted the item yet.
        FilterExpression: 'lease_until > :now',
        ExpressionAttributeValues: { ':pk': CALL_SLOTS, ':now': now.getTime() },
        ConsistentRead: true,
      }),
    );
    return Items.map((item) => ({ slot: Number(String(item.sk).slice('SLOT#'.length)), holder: String(item.holder), tenant: String(item.tenant) }));
  };
  return {
    async claim(attempt, now) {
      const holder = attemptReference(attempt);
      // Two tries: a place taken by a concurrent claim between the read and the write is looked for again once.
      for (let tries = 0; tries < 2; tries++) {
        const held = await heldAt(now);
        if (held.some((h) => h.holder === holder)) return 'claimed';
        const slot = freeSlot(held, cap);
        if (slot === undefined) return 'calls_full';
        if (!withinSlotShare(held, attempt.tenant, cap)) return 'behind_others';
        const taken = await landed({
          put: {
            TableName: tableName(),
            Item: {
              ...keys.callSlot(slot),
              holder,
              tenant: attempt.tenant,
              lease_until: now.getTime() + leaseSeconds * 1000,
              expires_at: expiresAfter(now, leaseSeconds + 3600),
            },
            ConditionExpression: 'attribute_not_exists(pk) OR lease_until <= :now',
            ExpressionAttributeValues: { ':now': now.getTime() },
          },
        });
        if (taken) return 'claimed';
      }
      return 'calls_full';
    },
    async release(attempt) {
      const holder = attemptReference(attempt);
      const held = await heldAt(new Date());
      // Freed by ending its lease, and only while this attempt still holds it: a place whose lease ran out may be another call's now.
      for (const { slot } of held.filter((h) => h.holder === holder))
        await landed({
          update: {
            TableName: tableName(),
            Key: keys.callSlot(slot),
            UpdateExpression: 'SET lease_until = :ended',
            ConditionExpression: 'holder = :holder',
            ExpressionAttributeValues: { ':holder': holder, ':ended': 0 },
          },
        });
    },
  };
}

/** No cap (the simulated network, or a deployment without a live platform). */
export const unlimitedCallSlots: CallSlots = { claim: async () => 'claimed', release: async () => undefined };
