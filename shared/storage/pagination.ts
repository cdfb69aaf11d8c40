/**
 * Cursor pagination (spec 4.8, contract-decisions section 5), used by every list endpoint.
 * A cursor is `payload.mac`: the payload holds the position after the last returned item;
 * the MAC (HMAC-SHA256 with a server-side key) binds it to the tenant, the list and the
 * list's filters, so a tampered, foreign or mismatched cursor is refused with 422.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../errors.ts';
import { canonicalJson } from '../versioning/version-attributes.ts';
import { tableClient, tableName } from './clients.ts';
import { landed } from './conditional.ts';
import { keys } from './keys.ts';
import type { Condition } from './versioned-write.ts';

/** A random secret kept in the table under `name`: created once, by whichever instance asks first. */
export async function systemSecret(name: string): Promise<Buffer> {
  const key = keys.system(name);
  const read = async () =>
    (await tableClient().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item?.secret as string | undefined;
  let secret = await read();
  if (!secret) {
    secret = randomBytes(32).toString('base64');
    // Whoever wrote it first (another instance at the same moment) wins; everyone reads theirs.
    if (!(await landed({ put: { TableName: tableName(), Item: { ...key, secret }, ConditionExpression: 'attribute_not_exists(pk)' } }))) secret = await read();
  }
  return Buffer.from(secret!, 'base64');
}

let cursorKey: Buffer | undefined;
/** The MAC key of every cursor. */
const loadCursorKey = async (): Promise<Buffer> => (cursorKey ??= await systemSecret('CURSOR_KEY'));

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

/** A partition being read: what it gave so far, and where to go on. */
interface SourceRead {
  source: ListSource;
  entries: ListEntry[];
  startKey: Record<string, unknown> | undefined;
  /** The sort key of the last entry read (matching or not): the partition is known up to here. */
  readTo: string | undefined;
  scanned: number;
  rounds: number;
  /** Nothing more to read: the partition is exhausted, or a filtered one spent its budget. */
  done: boolean;
}

/** Rounds of reading a page may take before it returns what is complete (a short page, with a cursor). */
const MAX_ROUNDS = 6;

/**
 * One page of a list merged from several partitions (shards, filter values). Each partition is
 * read a few entries at a time, about its share of the page, and only the partitions that hold
 * the merge back read more: a page reads about what it shows, not a page from every partition,
 * on a tenant of any size. The merge is complete up to where the partition that read least far
 * stopped; the page ends there at the latest. Every item sorts by a unique key, so each item
 * appears exactly once across pages.
 */
export async function listPage(request: ListRequest): Promise<{ views: Record<string, unknown>[]; last: string | undefined }> {
  const { limit, descending = false } = request;
  const before = (a: string, b: string) => (descending ? a > b : a < b);
  const budget = Math.max(limit + 1, Math.ceil((request.readBudget ?? FILTERED_ENTRIES_PER_PAGE) / request.sources.length));
  const chunk = Math.ceil((1.5 * limit) / request.sources.length) + 2;
  const reads: SourceRead[] = request.sources.map((source) => ({
    source,
    entries: [],
    startKey: undefined,
    readTo: undefined,
    scanned: 0,
    rounds: 0,
    done: false,
  }));
  let laggards = reads;
  for (let round = 1; ; round++) {
    await Promise.all(laggards.map((read) => readMore(read, request, chunk, budget)));
    const open = reads.filter((r) => !r.done || r.startKey !== undefined);
    const frontier = open.reduce<string | undefined>(
      (edge, r) => (r.readTo !== undefined && (edge === undefined || before(r.readTo, edge)) ? r.readTo : edge),
      undefined,
    );
    const complete = reads
      .flatMap((r) => r.entries)
      .filter((e) => frontier === undefined || !before(frontier, e.sk))
      .sort((a, b) => (a.sk === b.sk ? 0 : before(a.sk, b.sk) ? -1 : 1));
    laggards = open.filter((r) => !r.done && r.readTo === frontier);
    if (complete.length > limit || laggards.length === 0 || round === MAX_ROUNDS) {
      const page = complete.slice(0, limit);
      return { views: page.map((e) => e.list_view), last: complete.length > limit ? page.at(-1)!.sk : frontier };
    }
  }
}

async function readMore(read: SourceRead, { after, from, descending = false }: ListRequest, chunk: number, budget: number): Promise<void> {
  const { source } = read;
  const { pk, sk } = INDEX_KEYS[source.index];
  const { filter } = source;
  const bound = after !== undefined ? `#gsk ${descending ? '<' : '>'} :after` : from !== undefined ? `#gsk ${descending ? '<=' : '>='} :from` : undefined;
  const { Items, LastEvaluatedKey, ScannedCount } = await tableClient().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: source.index,
      KeyConditionExpression: bound ? `#gpk = :gpk AND ${bound}` : '#gpk = :gpk',
      ScanIndexForward: !descending,
      // A filtered partition reads twice as far each round (it cannot know how many entries match), within its budget.
      Limit: filter ? Math.min(budget - read.scanned, chunk * 2 ** ++read.rounds) : chunk,
      ExclusiveStartKey: read.startKey,
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
  read.entries.push(...(Items ?? []).map((item) => ({ sk: String(item[sk]), list_view: item.list_view as Record<string, unknown> })));
  read.scanned += ScannedCount ?? 0;
  read.startKey = LastEvaluatedKey;
  if (LastEvaluatedKey) read.readTo = String(LastEvaluatedKey[sk]);
  read.done = LastEvaluatedKey === undefined || (filter !== undefined && read.scanned >= budget);
}

/**
 * A merged list's pages of `pageSize`, one after another, for code that walks a list itself
 * (no cursor to hand out): stop reading by leaving the loop.
 */
export async function* listPages(request: Omit<ListRequest, 'limit' | 'after'>, pageSize: number): AsyncGenerator<Record<string, unknown>[]> {
  let after: string | undefined;
  do {
    const page = await listPage({ ...request, limit: pageSize, after });
    yield page.views;
    after = page.last;
  } while (after);
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
