import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { decorateClients, tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { claimSlot, ENDPOINT_SLOTS, endpointSlow, leaseElement, SLOW_ATTEMPT_MS, settleSlot, UNGUARDED_PER_INSTANCE } from '#shared/webhooks/endpoint-guard.ts';
import { readWebhookSubscription } from '#shared/webhooks/subscription-store.ts';

/** Claims refused by their condition, per subscription: DynamoDB bills each. */
const refusedClaims = new Map<string, number>();
/** Every write to an item, per partition key. */
const writes = new Map<string, number>();
decorateClients((service, client) => {
  if (service !== 'dynamodb') return;
  (client as DynamoDBClient).middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { Key?: { pk?: { S?: string } }; Item?: { pk?: { S?: string } }; UpdateExpression?: string };
      const written = String(input.Key?.pk?.S ?? input.Item?.pk?.S ?? '');
      if (input.UpdateExpression !== undefined || input.Item) writes.set(written, (writes.get(written) ?? 0) + 1);
      try {
        return await next(args);
      } catch (error) {
        const pk = String((args.input as { Key?: { pk?: { S?: string } } }).Key?.pk?.S ?? '');
        if ((error as Error).name === 'ConditionalCheckFailedException') refusedClaims.set(pk, (refusedClaims.get(pk) ?? 0) + 1);
        throw error;
      }
    },
    { step: 'finalizeRequest', name: 'countRefusedClaims' },
  );
});

/** An endpoint with `live` attempts under way and `dead` ones whose lease ran out (their attempts died). */
async function endpointWithLeases(live: number, dead: number, now: Date) {
  const tenant = `slots-${randomUUID()}`;
  const lease = (endsAt: number, i: number) => `${endsAt.toString(36)}#a${i}`;
  const leases = new Set([
    ...Array.from({ length: live }, (_, i) => lease(now.getTime() + 60_000, i)),
    ...Array.from({ length: dead }, (_, i) => lease(now.getTime() - 60_000, live + i)),
  ]);
  await tableClient().send(new PutCommand({ TableName: tableName(), Item: { ...keys.webhookSubscription(tenant), ...(leases.size ? { leases } : {}) } }));
  return { tenant, pk: keys.webhookSubscription(tenant).pk };
}

describe("an endpoint's concurrency slots", () => {
  it('go to as many concurrent attempts as there are slots, each with its own lease; each of the others is refused once and waits', async () => {
    const now = new Date();
    const { tenant, pk } = await endpointWithLeases(0, 0, now);
    const claims = await Promise.all(Array.from({ length: ENDPOINT_SLOTS + 5 }, () => claimSlot(tenant, {}, now, 30)));
    const leases = claims.flatMap((c) => (c.kind === 'slot' ? [c.lease] : []));
    expect(new Set(leases).size).toBe(ENDPOINT_SLOTS);
    expect(claims.filter((c) => c.kind === 'wait' && c.reason === 'busy')).toHaveLength(5);
    expect(refusedClaims.get(pk) ?? 0).toBe(5);
    expect((await readWebhookSubscription(tenant))?.leases).toEqual(new Set(leases));
  });

  it('cost no write when the attempt read them all taken, and free the leases of attempts that died', async () => {
    const now = new Date();
    const full = await endpointWithLeases(ENDPOINT_SLOTS, 0, now);
    const before = (await readWebhookSubscription(full.tenant))!;
    expect(await claimSlot(full.tenant, before, now, 30)).toMatchObject({ kind: 'wait', reason: 'busy' });
    expect(refusedClaims.get(full.pk) ?? 0).toBe(0);

    const withDead = await endpointWithLeases(ENDPOINT_SLOTS - 2, 2, now);
    const claim = await claimSlot(withDead.tenant, {}, now, 30);
    expect(claim.kind).toBe('slot');
    const after = (await readWebhookSubscription(withDead.tenant))!;
    expect([...after.leases!].filter((l) => l.includes('#a18') || l.includes('#a19'))).toEqual([]);
    expect(after.leases!.size).toBe(ENDPOINT_SLOTS - 1);
  });

  it('are given back by the attempt that holds one, never another attempt’s', async () => {
    const now = new Date();
    const { tenant } = await endpointWithLeases(3, 0, now);
    const claim = await claimSlot(tenant, (await readWebhookSubscription(tenant))!, now, 30);
    if (claim.kind !== 'slot') throw new Error('no slot');
    expect((await readWebhookSubscription(tenant))!.leases!.size).toBe(4);
    await settleSlot(tenant, {}, claim, true, now);
    await settleSlot(tenant, {}, { lease: leaseElement(now) }, true, now);
    expect((await readWebhookSubscription(tenant))!.leases!.size).toBe(3);
  });

  it('are not needed by a fast endpoint: its healthy deliveries write nothing to the subscription item, up to a few at once per sender', async () => {
    const now = new Date();
    const { tenant, pk } = await endpointWithLeases(0, 0, now);
    const fastUntil = new Date(now.getTime() + 50_000).toISOString();
    await tableClient().send(new PutCommand({ TableName: tableName(), Item: { ...keys.webhookSubscription(tenant), fast_until: fastUntil } }));
    const state = (await readWebhookSubscription(tenant))!;
    const before = writes.get(pk) ?? 0;
    const claims = await Promise.all(Array.from({ length: UNGUARDED_PER_INSTANCE + 1 }, () => claimSlot(tenant, state, now, 30)));
    expect(claims.map((c) => c.kind)).toEqual([...Array.from({ length: UNGUARDED_PER_INSTANCE }, () => 'unguarded'), 'slot']);
    const fast = { delivered: true, latencyMs: 40, slowAfterMs: SLOW_ATTEMPT_MS };
    for (const claim of claims.slice(0, UNGUARDED_PER_INSTANCE)) await settleSlot(tenant, state, claim as { kind: 'unguarded' }, fast, now);
    // The one claim beyond the instance's unguarded attempts took a slot: its claim is the only write.
    expect((writes.get(pk) ?? 0) - before).toBe(1);
  });

  it("go back to a new endpoint's attempts until one answers fast, and again once a fast endpoint keeps an attempt waiting", async () => {
    const now = new Date();
    const { tenant } = await endpointWithLeases(0, 0, now);
    const first = await claimSlot(tenant, (await readWebhookSubscription(tenant))!, now, 30);
    expect(first.kind).toBe('slot');
    await settleSlot(
      tenant,
      (await readWebhookSubscription(tenant))!,
      first as { lease: string },
      { delivered: true, latencyMs: 30, slowAfterMs: SLOW_ATTEMPT_MS },
      now,
    );
    const fast = (await readWebhookSubscription(tenant))!;
    expect(Date.parse(fast.fast_until!)).toBeGreaterThan(now.getTime());
    const second = await claimSlot(tenant, fast, now, 30);
    expect(second.kind).toBe('unguarded');
    await endpointSlow(tenant, fast, now);
    const slow = (await readWebhookSubscription(tenant))!;
    expect(slow.fast_until).toBeUndefined();
    expect((await claimSlot(tenant, slow, now, 30)).kind).toBe('slot');
    // A failure without a slot counts toward the breaker and starts the failing clock, in one write.
    await settleSlot(tenant, fast, second as { kind: 'unguarded' }, { delivered: false, latencyMs: 30, slowAfterMs: SLOW_ATTEMPT_MS }, now);
    const failed = (await readWebhookSubscription(tenant))!;
    expect([failed.failed_attempts?.size, failed.failing_since]).toEqual([1, now.toISOString()]);
  });
});
