/**
 * Listen sessions (an extension of the contract): a developer's forwarder (`sandbox listen`)
 * sees the tenant's events without taking over its one webhook subscription. A session lives
 * while it is read: each read renews it for LISTEN_SESSION_SECONDS, so one whose reader stopped
 * expires by itself. While it lives, the fan-out writes each event it would deliver into the
 * session's feed as well (the same payload bytes), and the reader pulls the feed, so it works
 * wherever the reader can call the API, with no address the service must reach.
 */
import { randomBytes } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { LimitReachedError, NotFoundError } from '../errors.ts';
import type { PublicEventType } from '../events/event-types.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { landed } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';
import { epochSeconds, expiresAfter } from '../storage/ttl.ts';

/** A session not read for this long has ended. */
export const LISTEN_SESSION_SECONDS = 60;
/** Live sessions a tenant may have at once: each costs one feed write per event. */
export const LISTEN_SESSIONS_PER_TENANT = 5;
/** Feed entries one read returns at most. */
export const LISTEN_PAGE = 100;
/**
 * A read returns entries stamped at least this long ago: the stream processor writes entries
 * side by side, stamped before they land, so a younger one could otherwise be read and its
 * cursor passed before an older one lands. A stream record handled twice can feed its event
 * twice: the reader drops an event id it has seen.
 */
export const LISTEN_SETTLE_MS = 2_000;
/** How long feed entries are kept (DynamoDB's TTL removes them). */
const FEED_RETENTION_SECONDS = 3600;

export interface ListenSession {
  listen_session_id: string;
  event_types: PublicEventType[];
  expires_at: number;
}

export interface ListenFeedEntry {
  cursor: string;
  event_id: string;
  event_type: string;
  payload: string;
}

const isoOf = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The tenant's sessions that have not expired (TTL removes expired ones only eventually). */
export async function liveListenSessions(tenant: string, now: Date, options: { consistent?: boolean } = {}): Promise<ListenSession[]> {
  const { pk } = keys.listenSession(tenant, '');
  const { Items = [] } = await tableClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: 'expires_at > :now',
      ExpressionAttributeValues: { ':pk': pk, ':now': epochSeconds(now) },
      ...(options.consistent ? { ConsistentRead: true } : {}),
    }),
  );
  return Items as ListenSession[];
}

/**
 * A tenant's sessions live in its LISTEN_SESSIONS_PER_TENANT slots: a session is the item of
 * the slot it claimed, by a conditional write that succeeds only on a free or expired slot, so
 * concurrent creates can never hold more than the cap. The slot is the first hex digit of the
 * session's id, so a read finds its session by one key.
 */
const slotKey = (tenant: string, slot: number) => keys.listenSession(tenant, `slot-${slot}`);

function slotOf(sessionId: string): number | undefined {
  const slot = Number.parseInt(sessionId.charAt('lsn_'.length), 16);
  return Number.isInteger(slot) && slot < LISTEN_SESSIONS_PER_TENANT ? slot : undefined;
}

/**
 * One read of the tenant's slots, then a claim of a free one, trying the next free one only if
 * another create took it meanwhile: a create costs one read and one write, and a tenant at its
 * cap is answered after the read alone. (Claiming slot after slot blindly would cost a refused
 * create five conditional writes one after another, which on a busy table runs past the API's 10 s.)
 */
export async function createListenSession(tenant: string, eventTypes: PublicEventType[], now: Date) {
  const expiresAt = expiresAfter(now, LISTEN_SESSION_SECONDS);
  const taken = new Set((await liveListenSessions(tenant, now, { consistent: true })).map((s) => slotOf(s.listen_session_id)));
  for (let slot = 0; slot < LISTEN_SESSIONS_PER_TENANT; slot++) {
    if (taken.has(slot)) continue;
    const session: ListenSession = {
      listen_session_id: `lsn_${slot.toString(16)}${randomBytes(16).toString('hex').slice(1)}`,
      event_types: eventTypes,
      expires_at: expiresAt,
    };
    const claimed = await landed({
      put: {
        TableName: tableName(),
        Item: { ...slotKey(tenant, slot), entity: 'listen_session', ...session },
        ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
        ExpressionAttributeValues: { ':now': epochSeconds(now) },
      },
    });
    if (claimed) return { listen_session_id: session.listen_session_id, event_types: eventTypes, expires_at: isoOf(expiresAt) };
  }
  throw new LimitReachedError(`At most ${LISTEN_SESSIONS_PER_TENANT} listen sessions at once; one ends ${LISTEN_SESSION_SECONDS} s after its last read`);
}

/** The fan-out's side: the event into every live session that wants it. */
export async function feedListenSessions(
  tenant: string,
  sessions: readonly ListenSession[],
  event: { event_id: string; event_type: string; test?: boolean },
  payload: string,
  now: Date,
): Promise<void> {
  const wanting = sessions.filter((s) => s.expires_at > epochSeconds(now) && (event.test === true || s.event_types.includes(event.event_type as never)));
  await Promise.all(
    wanting.map((s) =>
      tableClient().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.listenFeedEntry(tenant, s.listen_session_id, `${now.toISOString()}#${event.event_id}`),
            entity: 'listen_feed',
            event_id: event.event_id,
            event_type: event.event_type,
            payload,
            expires_at: expiresAfter(now, FEED_RETENTION_SECONDS),
          },
        }),
      ),
    ),
  );
}

/** Renews the session and reads its feed after `after`, up to the settle time; NotFound once it has ended. */
export async function readListenFeed(tenant: string, sessionId: string, after: string | undefined, now: Date) {
  const expiresAt = expiresAfter(now, LISTEN_SESSION_SECONDS);
  const slot = slotOf(sessionId);
  const ended = () => new NotFoundError(`No live listen session ${sessionId}: it ends ${LISTEN_SESSION_SECONDS} s after its last read; start a new one`);
  if (slot === undefined) throw ended();
  // Renewed only while it is this session's and has not expired: an expired slot may be another session's already.
  const renewed = await landed({
    update: {
      TableName: tableName(),
      Key: slotKey(tenant, slot),
      UpdateExpression: 'SET expires_at = :expires',
      ConditionExpression: 'listen_session_id = :id AND expires_at > :now',
      ExpressionAttributeValues: { ':expires': expiresAt, ':id': sessionId, ':now': epochSeconds(now) },
    },
  });
  if (!renewed) throw ended();
  const settled = new Date(now.getTime() - LISTEN_SETTLE_MS).toISOString();
  const feedKey = (cursor: string) => keys.listenFeedEntry(tenant, sessionId, cursor);
  const { pk, sk: cursorPrefix } = feedKey('');
  // `after!` sorts just past the cursor `after` (no cursor extends another); `settled~` past every cursor stamped at the settle time (`#` and an event id follow it).
  const from = feedKey(`${after ?? ''}!`).sk;
  const to = feedKey(`${settled}~`).sk;
  // A cursor at or past the settle bound (a reader whose clock runs ahead, or one that asks again at once): nothing settled yet.
  if (from > to) return { data: [], next_after: after ?? null, expires_at: isoOf(expiresAt) };
  const { Items = [], LastEvaluatedKey } = await tableClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      // DynamoDB's TTL deletes expired entries only eventually: one past its time is never served.
      FilterExpression: 'expires_at > :now',
      ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': to, ':now': epochSeconds(now) },
      Limit: LISTEN_PAGE,
    }),
  );
  const data: ListenFeedEntry[] = Items.map((item) => ({
    cursor: String(item.sk).slice(cursorPrefix.length),
    event_id: String(item.event_id),
    event_type: String(item.event_type),
    payload: String(item.payload),
  }));
  // A page whose entries were all past their time still moves the reader on, past what it read.
  const evaluated = LastEvaluatedKey ? String(LastEvaluatedKey.sk).slice(cursorPrefix.length) : undefined;
  return { data, next_after: data.at(-1)?.cursor ?? evaluated ?? after ?? null, expires_at: isoOf(expiresAt) };
}
