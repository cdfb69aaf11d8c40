/**
 * One call sweep serves every tenant: a tenant's backlog, whatever its priorities, never
 * keeps another tenant's due order out of the next sweep (the real sweep, over DynamoDB Local's
 * due index by skip scan; the advance only records what the sweep started, in order).
 */
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { CALLS_PER_TENANT_PER_SWEEP, sweepDueOrders } from '#shared/orders/due-sweep.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';

/** A due entry as an order carries it (under a sort key no reader takes for an order). */
const dueEntry = (tenant: string, id: string, priority: number, dueAt: Date) => {
  const pk = keys.order(tenant, id).pk;
  return { pk, sk: 'DUE-ENTRY-TEST', tenant, external_order_id: id, priority, ...keys.orderDue({ pk, tenant, priority }, dueAt) };
};

async function writeAll(items: Record<string, unknown>[], as: 'put' | 'delete'): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    const chunk = items.slice(i, i + 25);
    const requests = chunk.map((item) => (as === 'put' ? { PutRequest: { Item: item } } : { DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
    await tableClient().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
  }
}

describe('the call sweep', () => {
  it("serves tenant B's due order in the first round of the sweep although tenant A has 200 due orders at priority 1000", async () => {
    const [a, b] = [`noisy-${randomUUID().slice(0, 8)}`, `quiet-${randomUUID().slice(0, 8)}`];
    const now = new Date();
    const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
    const backlog = [
      ...Array.from({ length: 200 }, (_, i) => dueEntry(a, `a-${i}`, 1000, minutesAgo(10))),
      // A's own lower-priority orders, due at the same time: priority orders A's orders among themselves.
      ...Array.from({ length: 30 }, (_, i) => dueEntry(a, `a-low-${i}`, 0, minutesAgo(10))),
      dueEntry(b, 'b-1', -1000, minutesAgo(0.1)),
    ];
    await writeAll(backlog, 'put');
    try {
      const started: string[] = [];
      await sweepDueOrders(now, async (tenant, id) => {
        if (tenant === a || tenant === b) started.push(`${tenant}/${id}`);
      });
      const ofA = started.filter((s) => s.startsWith(`${a}/`));
      // Round robin: B's order starts within the first two of the two tenants' turns.
      expect(started.indexOf(`${b}/b-1`)).toBeLessThanOrEqual(1);
      expect(ofA).toHaveLength(CALLS_PER_TENANT_PER_SWEEP);
      expect(ofA.every((s) => !s.includes('a-low-'))).toBe(true);
    } finally {
      await writeAll(backlog, 'delete');
    }
  });

  it('starts an order whose due entry is a bare due time, the form without day and tenant', async () => {
    const tenant = `bare-${randomUUID().slice(0, 8)}`;
    const pk = keys.order(tenant, 'o-1').pk;
    const entry = {
      pk,
      sk: 'DUE-ENTRY-TEST',
      tenant,
      external_order_id: 'o-1',
      priority: 0,
      gsi2pk: keys.orderDue({ pk, tenant, priority: 0 }, new Date()).gsi2pk,
      gsi2sk: new Date(Date.now() - 60_000).toISOString(),
    };
    await writeAll([entry], 'put');
    try {
      const started: string[] = [];
      await sweepDueOrders(new Date(), async (t, id) => {
        if (t === tenant) started.push(id);
      });
      expect(started).toEqual(['o-1']);
    } finally {
      await writeAll([entry], 'delete');
    }
  });
});
