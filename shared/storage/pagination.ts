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

export interface ListRequest {
  /** The list's index partitions (keys.listShards). */
  shards: readonly string[];
  limit: number;
  /** The sort key of the last item of the previous page. */
  after: string | undefined;
  descending?: boolean;
  filter?: Condition;
}

interface ListEntry {
  gsi1sk: string;
  list_view: Record<string, unknown>;
}

/**
 * One page of a sharded list: each shard yields its first `limit` matches after the
 * position, and the merge of them in sort-key order gives the page. Every item sorts by a
 * unique key, so each item appears exactly once across pages.
 */
export async function listPage(request: ListRequest): Promise<{ views: Record<string, unknown>[]; last: string | undefined }> {
  const { limit, descending = false } = request;
  const shards = await Promise.all(request.shards.map((shard) => queryShard(shard, request)));
  const merged = shards.flatMap((s) => s.entries).sort((a, b) => (a.gsi1sk === b.gsi1sk ? 0 : a.gsi1sk < b.gsi1sk !== descending ? -1 : 1));
  const page = merged.slice(0, limit);
  const more = merged.length > limit || shards.some((s) => s.more);
  return { views: page.map((e) => e.list_view), last: more && page.length > 0 ? page.at(-1)!.gsi1sk : undefined };
}

async function queryShard(shard: string, { limit, after, descending = false, filter }: ListRequest) {
  const entries: ListEntry[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const { Items, LastEvaluatedKey } = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: after === undefined ? '#gpk = :gpk' : `#gpk = :gpk AND #gsk ${descending ? '<' : '>'} :after`,
        ScanIndexForward: !descending,
        // Without a filter, one more than a page tells whether more exist; with one, read ahead.
        Limit: filter ? Math.max(25, 2 * limit) : limit + 1,
        ExclusiveStartKey: startKey,
        ProjectionExpression: '#gsk, list_view',
        ...(filter ? { FilterExpression: filter.ConditionExpression } : {}),
        ExpressionAttributeNames: { '#gpk': 'gsi1pk', '#gsk': 'gsi1sk', ...filter?.ExpressionAttributeNames },
        ExpressionAttributeValues: {
          ':gpk': shard,
          ...(after === undefined ? {} : { ':after': after }),
          ...filter?.ExpressionAttributeValues,
        },
      }),
    );
    entries.push(...((Items ?? []) as ListEntry[]));
    startKey = LastEvaluatedKey;
  } while (entries.length <= limit && startKey);
  return { entries: entries.slice(0, limit + 1), more: entries.length > limit || startKey !== undefined };
}

/**
 * Lists a page and encodes its cursor: what every list handler calls.
 * @example const page = await paginate({ tenant, list: 'listProducts', filters }, query, { shards, filter });
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
