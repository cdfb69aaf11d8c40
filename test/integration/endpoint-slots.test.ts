import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { decorateClients, tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { CLAIM_TRIES, claimSlot, ENDPOINT_SLOTS } from '#shared/webhooks/endpoint-guard.ts';

/** Claims refused by their condition, per tenant: DynamoDB bills each. */
const refusedClaims = new Map<string, number>();
decorateClients((service, client) => {
  if (service !== 'dynamodb') return;
  (client as DynamoDBClient).middlewareStack.add(
    (next) => async (args) => {
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

async function endpointWithSlotsTaken(taken: number, now: Date) {
  const tenant = `slots-${randomUUID()}`;
  const leased = new Date(now.getTime() + 60_000).toISOString();
  const slots = Object.fromEntries(Array.from({ length: taken }, (_, slot) => [`slot_${slot}`, leased]));
  await tableClient().send(new PutCommand({ TableName: tableName(), Item: { ...keys.webhookSubscription(tenant), ...slots } }));
  return { tenant, pk: keys.webhookSubscription(tenant).pk };
}

describe("an endpoint's concurrency slots", () => {
  it('are claimed from the state a refusal answers, not the stale one an attempt read: one refused write at most when one slot is left', async () => {
    const now = new Date();
    const { tenant, pk } = await endpointWithSlotsTaken(ENDPOINT_SLOTS - 1, now);
    // The attempt read the subscription when every slot was free.
    const claim = await claimSlot(tenant, {}, now, 30);
    expect(claim).toMatchObject({ kind: 'slot', slot: ENDPOINT_SLOTS - 1 });
    expect(refusedClaims.get(pk) ?? 0).toBeLessThanOrEqual(1);
  });

  it('go to one attempt each, never more than there are, each claimer spending at most CLAIM_TRIES writes; the others wait', async () => {
    const now = new Date();
    const { tenant, pk } = await endpointWithSlotsTaken(0, now);
    const claimers = ENDPOINT_SLOTS + 5;
    const claims = await Promise.all(Array.from({ length: claimers }, () => claimSlot(tenant, {}, now, 30)));
    const slots = claims.flatMap((c) => (c.kind === 'slot' ? [c.slot] : []));
    expect(new Set(slots).size).toBe(slots.length);
    expect(slots.length).toBeLessThanOrEqual(ENDPOINT_SLOTS);
    // Each refusal is a claimer losing a race: at most one a claimer could have avoided.
    expect(refusedClaims.get(pk) ?? 0).toBeLessThanOrEqual(claimers * (CLAIM_TRIES - 1) + claims.filter((c) => c.kind === 'wait').length);
    expect(claims.filter((c) => c.kind === 'wait').every((c) => c.kind === 'wait' && c.reason === 'busy')).toBe(true);
  });
});
