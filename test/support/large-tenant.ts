/** A tenant's order book seeded straight into the table (as the store would hold it), and counts over it. */
import { BatchWriteCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '#shared/async/concurrency.ts';
import type { StoredJob } from '#shared/jobs/reaction-jobs.ts';
import type { StoredOrder } from '#shared/orders/order.ts';
import { contentOf } from '#shared/orders/order.ts';
import { encodeEntry } from '#shared/orders/order-log.ts';
import { customerLink, orderItem } from '#shared/orders/order-store.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { versionAttributes } from '#shared/versioning/version-attributes.ts';

function scheduledOrder(tenant: string, id: string, customer: string, variant: string, contactAt: string, now: Date): StoredOrder {
  const content = contentOf({
    order_kind: 'standard',
    external_customer_id: customer,
    items: [{ external_variant_id: variant, quantity: 1, price: '9.99', currency: 'EUR' }],
    contact_permission: { status: 'granted', basis: 'prior_purchase', reference: `receipt-${id}` },
    contact_not_before: contactAt,
    priority: 0,
    confidence: null,
  });
  return {
    ...keys.order(tenant, id),
    ...content,
    ...versionAttributes('1', content),
    tenant,
    external_order_id: id,
    processing_state: 'scheduled',
    state_reason: null,
    revision: 3,
    status_revision: 3,
    correlation_id: `cor_${id}`,
    call_attempts: 0,
    next_contact_at: contactAt,
    substitutions: [],
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    // Seeded as it stands: its current state's entry stands for the history before it.
    log: [encodeEntry({ kind: 'status', revision: 3, to: 'scheduled', reason: null, at: now.toISOString(), causation: null })],
  };
}

/** `count` scheduled orders of `customer` for `variant` (with their links from the customer), each keeping a contact permission reference. */
export async function seedOrders(tenant: string, customer: string, variant: string, count: number, contactAt: string): Promise<void> {
  const now = new Date();
  const batches = Array.from({ length: Math.ceil(count / 12) }, (_, b) =>
    Array.from({ length: Math.min(12, count - b * 12) }, (_, i) => {
      const order = scheduledOrder(tenant, `o-${b * 12 + i}`, customer, variant, contactAt, now);
      return [orderItem(order, now), customerLink(order)];
    }).flat(),
  );
  await mapWithConcurrency(batches, 4, async (items) => {
    let pending: Record<string, unknown>[] = items.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const out = await tableClient().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (out.UnprocessedItems?.[tableName()] ?? []) as Record<string, unknown>[];
    }
  });
}

export async function jobsOf(tenant: string, kind: StoredJob['kind']): Promise<StoredJob[]> {
  const { Items } = await tableClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :kind)',
      ExpressionAttributeValues: { ':pk': `T#${tenant}#JOBS`, ':kind': `JOB#${kind}#` },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []) as StoredJob[];
}

/** Orders of the tenant in `state` (any when absent) and, when asked, only those still keeping a contact permission reference. */
export async function countOrders(tenant: string, where: { state?: string; withReference?: boolean }): Promise<number> {
  const clauses = [
    'begins_with(pk, :p)',
    'sk = :order',
    ...(where.state ? ['processing_state = :state'] : []),
    ...(where.withReference ? ['attribute_exists(contact_permission.#ref)'] : []),
  ];
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await tableClient().send(
      new ScanCommand({
        TableName: tableName(),
        Select: 'COUNT',
        FilterExpression: clauses.join(' AND '),
        ...(where.withReference ? { ExpressionAttributeNames: { '#ref': 'reference' } } : {}),
        ExpressionAttributeValues: { ':p': `T#${tenant}#ORDER#`, ':order': 'ORDER', ...(where.state ? { ':state': where.state } : {}) },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}
