/**
 * Cursor pagination (spec 4.8, contract-decisions section 5), used by every list endpoint.
 * A cursor is `payload.mac`: the payload holds the position after the last returned item;
 * the MAC (HMAC-SHA256 with a server-side key) binds it to the tenant, the list and the
 * list's filters, so a tampered, foreign or mismatched cursor is refused with 422.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../errors.ts';
import { tableClient, tableName } from './clients.ts';
import { keys } from './keys.ts';
import type { Condition } from './versioned-write.ts';
import { canonicalJson } from '../versioning/version-attributes.ts';
import { isConditionFailed } from './conditional.ts';

let cursorKey: Buffer | undefined;

/** The MAC key lives in the table (created once, by whichever instance comes first). */
async function loadCursorKey(): Promise<Buffer> {
  if (cursorKey) return cursorKey;
  const key = keys.system('CURSOR_KEY');
  const read = async () =>
    (await tableClient().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item?.secret as string | undefined;
  let secret = await read();
  if (!secret) {
    try {
      secret = randomBytes(32).toString('base64');
      await tableClient().send(new PutCommand({ TableName: tableName(), Item: { ...key, secret }, ConditionExpression: 'attribute_not_exists(pk)' }));
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      secret = await read();
    }
  }
  cursorKey = Buffer.from(secret!, 'base64');
  return cursorKey;
}

export interface CursorScope {
  tenant: string;
  list: string;
  /** The list's filters as parsed; a cursor only continues the list it came from. */
  filters: Record<string, unknown>;
}

const mac = (key: Buffer, scope: CursorScope, payload: string) =>
  createHmac('sha256', key)
    .update(`${scope.tenant}\n${scope.list}\n${canonicalJson(scope.filters)}\n${payload}`)
    .digest()
    .subarray(0, 24);

export async function encodeCursor(scope: CursorScope, position: string): Promise<string> {
  const payload = Buffer.from(JSON.stringify({ after: position }), 'utf8').toString('base64url');
  return `${payload}.${mac(await loadCursorKey(), scope, payload).toString('base64url')}`;
}

const invalidCursor = () =>
  new ValidationError(
    [{ pointer: 'query:cursor', message: 'is not a cursor of this list with these filters; start again without a cursor' }],
    'The cursor was altered, belongs to another list or filter, or was not issued by this service.',
  );

/** @throws ValidationError (422) for a tampered, foreign or mismatched cursor. */
export async function decodeCursor(scope: CursorScope, cursor: string | undefined): Promise<string | undefined> {
  if (cursor === undefined) return undefined;
  const [payload, signature, extra] = cursor.split('.');
  if (!payload || !signature || extra !== undefined) throw invalidCursor();
  const expected = mac(await loadCursorKey(), scope, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
  const position = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { after?: unknown }).after;
  if (typeof position !== 'string') throw invalidCursor();
  return position;
}

/** The indexes lists are read from: gsi1 holds each list, gsi3 the same entries by filter value (keys.ts). */
export type ListIndex = 'gsi1' | 'gsi3';
const INDEX_KEYS: Readonly<Record<ListIndex, { pk: string; sk: string }>> = { gsi1: { pk: 'gsi1pk', sk: 'gsi1sk' }, gsi3: { pk: 'gsi3pk', sk: 'gsi3sk' } };

/** One index partition a list page reads, with the filter its entries must also match (if any). */
export interface ListSource {
  index: ListIndex;
  partition: string;
  filter?: Condition | undefined;
}

/** The sources of `partitions` of one index, all with the same filter. */
export const sourcesOf = (index: ListIndex, partitions: readonly string[], filter?: Condition): ListSource[] =>
  partitions.map((partition) => ({ index, partition, ...(filter ? { filter } : {}) }));

/**
 * Entries a page may read from filtered sources, whatever it finds: a filter no index serves
 * (free text) costs a bounded amount per page, and a page may come back short (even empty)
 * with a cursor to continue.
 */
export const FILTERED_ENTRIES_PER_PAGE = 1_000;

export interface ListRequest {
  /** Partitions whose entries all sort by one key domain (ids, or times then ids): merged into one order. */
  sources: readonly ListSource[];
  limit: number;
  /** The sort key of the last item of the previous page (or where the previous page's reading stopped). */
  after: string | undefined;
  /** Entries sorting before this are not part of the list (`updated_since` on a `{updated_at}#{id}` key). */
  from?: string | undefined;
  descending?: boolean;
  /** Entries a page may read from filtered sources (FILTERED_ENTRIES_PER_PAGE unless given). */
  readBudget?: number;
}

interface ListEntry {
  sk: string;
  list_view: Record<string, unknown>;
}

interface SourceRead {
  entries: ListEntry[];
  /** Where reading stopped while more was left: the page is complete only up to here. */
  stoppedAt: string | undefined;
}

/**
 * One page of a list merged from several partitions (shards, filter values): each yields its
 * first matches after the position, and the merge in sort-key order gives the page, but only
 * up to where the source that read least far stopped. Every item sorts by a unique key, so
 * each item appears exactly once across pages.
 */
export async function listPage(request: ListRequest): Promise<{ views: Record<string, unknown>[]; last: string | undefined }> {
  const { limit, descending = false } = request;
  const budget = Math.max(limit + 1, Math.ceil((request.readBudget ?? FILTERED_ENTRIES_PER_PAGE) / request.sources.length));
  const reads = await Promise.all(request.sources.map((source) => readSource(source, request, budget)));
  const before = (a: string, b: string) => (descending ? a > b : a < b);
  const frontier = reads.reduce<string | undefined>(
    (edge, r) => (r.stoppedAt !== undefined && (edge === undefined || before(r.stoppedAt, edge)) ? r.stoppedAt : edge),
    undefined,
  );
  const complete = reads
    .flatMap((r) => r.entries)
    .filter((e) => frontier === undefined || !before(frontier, e.sk))
    .sort((a, b) => (a.sk === b.sk ? 0 : before(a.sk, b.sk) ? -1 : 1));
  const page = complete.slice(0, limit);
  const last = complete.length > limit ? page.at(-1)!.sk : frontier;
  return { views: page.map((e) => e.list_view), last };
}

async function readSource(source: ListSource, { limit, after, from, descending = false }: ListRequest, budget: number): Promise<SourceRead> {
  const { pk, sk } = INDEX_KEYS[source.index];
  const { filter } = source;
  const entries: ListEntry[] = [];
  let startKey: Record<string, unknown> | undefined;
  let scanned = 0;
  let lastScanned: string | undefined;
  const bound = after !== undefined ? `#gsk ${descending ? '<' : '>'} :after` : from !== undefined ? `#gsk ${descending ? '<=' : '>='} :from` : undefined;
  do {
    const { Items, LastEvaluatedKey, ScannedCount } = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: source.index,
        KeyConditionExpression: bound ? `#gpk = :gpk AND ${bound}` : '#gpk = :gpk',
        ScanIndexForward: !descending,
        // Without a filter, one more than a page tells whether more exist; with one, read ahead within the budget.
        Limit: filter ? Math.min(budget - scanned, Math.max(25, 2 * limit)) : limit + 1,
        ExclusiveStartKey: startKey,
        ProjectionExpression: '#gsk, list_view',
        ...(filter ? { FilterExpression: filter.ConditionExpression } : {}),
        ExpressionAttributeNames: { '#gpk': pk, '#gsk': sk, ...filter?.ExpressionAttributeNames },
        ExpressionAttributeValues: {
          ':gpk': source.partition,
          ...(after !== undefined ? { ':after': after } : from !== undefined ? { ':from': from } : {}),
          ...filter?.ExpressionAttributeValues,
        },
      }),
    );
    entries.push(...(Items ?? []).map((item) => ({ sk: String(item[sk]), list_view: item.list_view as Record<string, unknown> })));
    scanned += ScannedCount ?? 0;
    startKey = LastEvaluatedKey;
    if (LastEvaluatedKey) lastScanned = String(LastEvaluatedKey[sk]);
  } while (entries.length <= limit && startKey && scanned < budget);
  return { entries, stoppedAt: startKey ? lastScanned : undefined };
}

/**
 * Lists a page and encodes its cursor: what every list handler calls.
 * @example const page = await paginate({ tenant, list: 'products', filters }, query, { sources: sourcesOf('gsi1', keys.listShards(tenant, 'PRODUCTS')) });
 */
export async function paginate(
  scope: CursorScope,
  page: { limit: number; cursor?: string | undefined },
  request: Omit<ListRequest, 'limit' | 'after'>,
): Promise<{ data: Record<string, unknown>[]; next_cursor: string | null }> {
  const after = await decodeCursor(scope, page.cursor);
  const { views, last } = await listPage({ ...request, limit: page.limit, after });
  return { data: views, next_cursor: last === undefined ? null : await encodeCursor(scope, last) };
}
