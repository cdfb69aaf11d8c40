/** Reads of the sparse due-work index (gsi2): every entry of every shard whose due time has passed. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from './clients.ts';
import { landed, writeConditionally } from './conditional.ts';
import type { DueIndex } from './keys.ts';

/** A due time after every real one: "everything due, whenever" (a replay now, a listing of all pending work). */
export const EVERYTHING_DUE = new Date('9999-12-31T00:00:00Z');

/** Shards whose first pages a sweep reads at once. */
export const SHARDS_READ_AT_ONCE = 16;

/** Items of a due index (DUE_INDEXES) due by `now`, shard by shard and page by page. */

export async function* dueItems<T extends Record<string, unknown>>(index: DueIndex, now: Date, projection?: string): AsyncGenerator<T> {
  const page = (shard: number, startKey?: Record<string, unknown>) =>
    tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :shard AND gsi2sk <= :now',
        ExpressionAttributeValues: { ':shard': index.partition(shard), ':now': now.toISOString() },
        ...(projection ? { ProjectionExpression: projection } : {}),
        ExclusiveStartKey: startKey,
      }),
    );
  // Most shards hold nothing due: their first pages are read a group at a time.
  for (let first = 0; first < index.shards; first += SHARDS_READ_AT_ONCE) {
    const shards = Array.from({ length: Math.min(SHARDS_READ_AT_ONCE, index.shards - first) }, (_, i) => first + i);
    const firstPages = await Promise.all(shards.map((shard) => page(shard)));
    for (const [i, shard] of shards.entries()) {
      let current = firstPages[i]!;
      yield* (current.Items ?? []) as T[];
      while (current.LastEvaluatedKey) {
        current = await page(shard, current.LastEvaluatedKey);
        yield* (current.Items ?? []) as T[];
      }
    }
  }
}

const postponement = (item: Record<string, unknown>, next: Date) => ({
  TableName: tableName(),
  Key: { pk: item.pk, sk: item.sk },
  UpdateExpression: 'SET gsi2sk = :next',
  ConditionExpression: 'gsi2sk = :seen',
  ExpressionAttributeValues: { ':seen': item.gsi2sk, ':next': next.toISOString() },
});

/**
 * Moves an item's due time on to `next`, unless its owner changed it since it was seen: the
 * sweep that wins takes the work, so two sweeps never do it twice, and work whose sweep dies
 * comes due again.
 */
export function postponeDue(item: Record<string, unknown>, next: Date): Promise<boolean> {
  return landed({ update: postponement(item, next) });
}

/**
 * postponeDue for work that needs the whole item (the index projects only what names the
 * work): the same write answers with the item as it now stands, or undefined when another
 * sweep took the work.
 */
export async function takeDue(item: Record<string, unknown>, next: Date): Promise<Record<string, unknown> | undefined> {
  const taken = await writeConditionally({ update: { ...postponement(item, next), ReturnValues: 'ALL_NEW' } });
  return taken.written ? taken.item : undefined;
}

/**
 * A day-and-tenant-grouped due entry's sort key (`{day}#{tenant}#{due}#…`, keys.orderDue),
 * read back. A key that is a bare due time (`2026-11-24T09:00:00.000Z`) stands on its own: it
 * sorts after the grouped keys of its day (`T` is above `#`).
 */
export interface DueKey {
  day: string;
  /** The tenant, or undefined for a bare due time. */
  tenant: string | undefined;
  due: string;
}
export function dueKey(sortKey: string): DueKey {
  const [day = '', tenant, due] = sortKey.split('#');
  return tenant === undefined || due === undefined ? { day: sortKey.slice(0, 10), tenant: undefined, due: sortKey } : { day, tenant, due };
}
/** After every entry of a tenant's day (tenant ids are [a-z0-9_-], all above `#`, and `~` is above every due time). */
const pastGroup = (key: DueKey) => (key.tenant === undefined ? undefined : `${key.day}#${key.tenant}#~`);

/**
 * The skip scan of one shard of a day-and-tenant-grouped due index: the first entry due by
 * `now` of each tenant's day, one query per tenant with anything scheduled that day, however
 * many entries each has, and none for days after today. A tenant's day whose first entry is
 * not yet due is passed over.
 */
export async function* firstDueOfEachTenant<T extends Record<string, unknown>>(
  index: DueIndex,
  shard: number,
  now: Date,
  projection: string,
): AsyncGenerator<T & { gsi2sk: string }> {
  const nowIso = now.toISOString();
  const today = nowIso.slice(0, 10);
  let after: string | undefined;
  for (;;) {
    const { Items } = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi2',
        KeyConditionExpression: after === undefined ? 'gsi2pk = :shard' : 'gsi2pk = :shard AND gsi2sk > :after',
        ExpressionAttributeValues: { ':shard': index.partition(shard), ...(after === undefined ? {} : { ':after': after }) },
        ProjectionExpression: projection,
        Limit: 1,
      }),
    );
    const head = Items?.[0] as (T & { gsi2sk: string }) | undefined;
    if (!head) return;
    const key = dueKey(head.gsi2sk);
    if (key.day > today) return;
    if (key.due <= nowIso) yield head;
    after = pastGroup(key) ?? head.gsi2sk;
  }
}

/** Up to `limit` more of a tenant's day in one shard due by `now`, after `last` (one query). */
export async function moreDueOfTenant<T extends Record<string, unknown>>(
  index: DueIndex,
  shard: number,
  last: Record<string, unknown> & { gsi2sk: string },
  now: Date,
  limit: number,
  projection: string,
): Promise<{ entries: (T & { gsi2sk: string })[]; more: boolean }> {
  const { day, tenant } = dueKey(last.gsi2sk);
  if (tenant === undefined) return { entries: [], more: false };
  const { Items, LastEvaluatedKey } = await tableClient().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :shard AND gsi2sk BETWEEN :first AND :last',
      ExpressionAttributeValues: { ':shard': index.partition(shard), ':first': `${day}#${tenant}#`, ':last': `${day}#${tenant}#${now.toISOString()}#~` },
      ExclusiveStartKey: { pk: last.pk, sk: last.sk, gsi2pk: index.partition(shard), gsi2sk: last.gsi2sk },
      ProjectionExpression: projection,
      Limit: limit,
    }),
  );
  return { entries: (Items ?? []) as (T & { gsi2sk: string })[], more: LastEvaluatedKey !== undefined };
}
