/**
 * What an order keeps besides its own item, read back: its attempts, its result, and the
 * stretches of its log moved out of it; with the order's own log, its history and every event.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { type HistoryEntry, historyOf, mergedLog, type OrderRecords } from './order-log.ts';
import type { CallAttempt, OrderResult } from './order-schemas.ts';

/** Items of the order's own collection (attempts, history) by sort-key prefix. */
export async function orderCollection<T>(
  orderPk: string,
  prefix: string,
  options: { after?: string; limit?: number } = {},
): Promise<{ items: T[]; last?: string }> {
  const out = await tableClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': orderPk, ':prefix': prefix },
      ...(options.after ? { ExclusiveStartKey: keys.orderCollectionPosition(orderPk, options.after) } : {}),
      ...(options.limit ? { Limit: options.limit } : {}),
      ConsistentRead: true,
    }),
  );
  const items = (out.Items ?? []) as T[];
  return { items, ...(out.LastEvaluatedKey ? { last: String(out.LastEvaluatedKey.sk) } : {}) };
}

/** What an order's events are made of besides its own log: its attempts and result and, asked for, the stretches of its log moved out of it. */
export async function readOrderRecords(orderPk: string, options: { history: boolean }): Promise<OrderRecords & { history: string[] }> {
  const [attempts, result, history] = await Promise.all([
    allOf<CallAttempt>(orderPk, 'ATTEMPT#'),
    tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.orderResult(orderPk), ConsistentRead: true })),
    options.history ? allOf<{ log: string[] }>(orderPk, 'HISTORY#') : [],
  ]);
  return {
    attempts: new Map(attempts.map((a) => [Number(a.attempt), a])),
    result: result.Item as OrderResult | undefined,
    history: history.flatMap((h) => h.log),
  };
}

/** Every item of the order's collection under a prefix, page after page. */
async function allOf<T>(orderPk: string, prefix: string): Promise<T[]> {
  const items: T[] = [];
  let page: { items: T[]; last?: string } = { items: [], last: '' };
  do {
    page = await orderCollection<T>(orderPk, prefix, page.last ? { after: page.last } : {});
    items.push(...page.items);
  } while (page.last);
  return items;
}

/** The position a history page ends at, as a cursor holds it (the sort key its status event once had). */
const historyPosition = (orderPk: string, revision: number) => keys.orderEvent(orderPk, revision).sk;

/**
 * A page of the order's history (its state changes, oldest first): `after` is the previous
 * page's `last`.
 */
export async function orderHistory(orderPk: string, options: { after?: string; limit?: number } = {}): Promise<{ entries: HistoryEntry[]; last?: string }> {
  const [{ Item }, moved] = await Promise.all([
    tableClient().send(new GetCommand({ TableName: tableName(), Key: { pk: orderPk, sk: 'ORDER' }, ConsistentRead: true })),
    allOf<{ log: string[] }>(orderPk, 'HISTORY#'),
  ]);
  const all = historyOf(mergedLog(...moved.map((h) => h.log), Item?.log as string[] | undefined));
  const after = options.after ? Number(options.after.slice('EVENT#'.length)) : 0;
  const rest = all.filter((e) => e.revision > after);
  const entries = options.limit ? rest.slice(0, options.limit) : rest;
  return { entries, ...(entries.length < rest.length ? { last: historyPosition(orderPk, entries.at(-1)!.revision) } : {}) };
}

/** The revision an order's events are published through (its last completed publication's), as the order says now. */
export async function publishedThrough(orderPk: string): Promise<number> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: { pk: orderPk, sk: 'ORDER' }, ProjectionExpression: 'published', ConsistentRead: true }),
  );
  return Number(Item?.published ?? 0);
}
