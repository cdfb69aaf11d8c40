/**
 * What an order keeps besides its own item, read back: its attempts, its result, and the
 * stretches of its log moved out of it; with the order's own log, its history and every event.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { CallAttempt, OrderResult } from '../calls/call-schemas.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { entryRevision, type HistoryEntry, historyOf, mergedLog, type OrderRecords, type PublicationSpan } from './order-log.ts';

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

/**
 * What an order's events are made of besides its own log: its attempts and result and, asked
 * for a span, the stretches of its log moved out of it that the span needs.
 */
export async function readOrderRecords(orderPk: string, options: { history: PublicationSpan | null }): Promise<OrderRecords & { history: string[] }> {
  const [attempts, result, history] = await Promise.all([
    allOf<CallAttempt>(orderPk, 'ATTEMPT#'),
    tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.orderResult(orderPk), ConsistentRead: true })),
    options.history ? movedStretches(orderPk, options.history) : [],
  ]);
  return {
    attempts: new Map(attempts.map((a) => [Number(a.attempt), a])),
    result: result.Item as OrderResult | undefined,
    history,
  };
}

/** Stretches read per page, newest first: a record that lags its order by a few changes needs one or two. */
const STRETCHES_PER_PAGE = 25;

/**
 * The stretches moved out of the order that a span needs: those that begin by `through`, newest
 * first, back to the one beginning at or before `after`. A stretch begins with a state change,
 * so that one holds the previous state of the span's first event. A record that lags its order
 * reads what lies between its revision and its last publication, not every stretch the order
 * has moved out since it was created (thousands, after thousands of changes).
 */
async function movedStretches(orderPk: string, span: PublicationSpan): Promise<string[]> {
  const stretches: string[][] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
        ExpressionAttributeValues: { ':pk': orderPk, ':first': keys.orderHistory(orderPk, 0).sk, ':last': keys.orderHistory(orderPk, span.through).sk },
        ScanIndexForward: false,
        Limit: STRETCHES_PER_PAGE,
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const { log } of (page.Items ?? []) as { log: string[] }[]) {
      stretches.push(log);
      if (entryRevision(log[0]!) <= span.after) return stretches.flat();
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return stretches.flat();
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
