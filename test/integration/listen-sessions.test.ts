import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { LimitReachedError, NotFoundError } from '#shared/errors.ts';
import { decorateClients, tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import {
  createListenSession,
  feedListenSessions,
  LISTEN_SESSION_SECONDS,
  LISTEN_SESSIONS_PER_TENANT,
  LISTEN_SETTLE_MS,
  liveListenSessions,
  readListenFeed,
} from '#shared/webhooks/listen-sessions.ts';

const STATUS = 'commerce.order.status_changed.v1';

/** The table calls this file's code makes, by command, since the last reset. */
let calls: string[] = [];
decorateClients((service, client) => {
  if (service !== 'dynamodb') return;
  (client as DynamoDBClient).middlewareStack.add(
    (next, context) => (args) => {
      calls.push(context.commandName!);
      return next(args);
    },
    { step: 'initialize', name: 'countCalls' },
  );
});
const later = (from: Date, ms: number) => new Date(from.getTime() + ms);

describe('listen sessions (the feed `sandbox listen` reads)', () => {
  it('feed the events of their types in order, each read renewing the session, and end a minute after the last read', async () => {
    const tenant = `listen-${randomUUID()}`;
    const start = new Date();
    const session = await createListenSession(tenant, [STATUS], start);
    const sessions = await liveListenSessions(tenant, start);
    await feedListenSessions(tenant, sessions, { event_id: 'evt_a', event_type: STATUS }, '{"a":1}', later(start, 10));
    await feedListenSessions(tenant, sessions, { event_id: 'evt_other', event_type: 'commerce.order.result_ready.v1' }, '{}', later(start, 20));
    await feedListenSessions(tenant, sessions, { event_id: 'evt_test', event_type: 'commerce.order.result_ready.v1', test: true }, '{"t":1}', later(start, 30));

    // Not before the settle time: an entry still landing is never passed over.
    expect((await readListenFeed(tenant, session.listen_session_id, undefined, later(start, 100))).data).toEqual([]);
    const first = await readListenFeed(tenant, session.listen_session_id, undefined, later(start, LISTEN_SETTLE_MS + 100));
    expect(first.data.map((e) => [e.event_id, e.payload])).toEqual([
      ['evt_a', '{"a":1}'],
      ['evt_test', '{"t":1}'],
    ]);
    const second = await readListenFeed(tenant, session.listen_session_id, first.next_after!, later(start, LISTEN_SETTLE_MS + 200));
    expect(second.data).toEqual([]);
    expect(second.next_after).toBe(first.next_after);

    // Read 50 s later it lives on (renewed by the last read); unread for longer than a minute, it has ended.
    const renewedAt = later(start, 50_000);
    await readListenFeed(tenant, session.listen_session_id, first.next_after!, renewedAt);
    await expect(readListenFeed(tenant, session.listen_session_id, undefined, later(renewedAt, (LISTEN_SESSION_SECONDS + 1) * 1000))).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(await liveListenSessions(tenant, later(renewedAt, (LISTEN_SESSION_SECONDS + 1) * 1000))).toEqual([]);
  });

  it('belong to their tenant alone, and a tenant has at most a few at once', async () => {
    const tenant = `listen-${randomUUID()}`;
    const now = new Date();
    const session = await createListenSession(tenant, [STATUS], now);
    await expect(readListenFeed(`listen-${randomUUID()}`, session.listen_session_id, undefined, now)).rejects.toBeInstanceOf(NotFoundError);
    for (let i = 1; i < LISTEN_SESSIONS_PER_TENANT; i++) await createListenSession(tenant, [STATUS], now);
    await expect(createListenSession(tenant, [STATUS], now)).rejects.toBeInstanceOf(LimitReachedError);
  });

  it('hold the cap under concurrent creates: seven at once give five sessions and two refusals', async () => {
    const tenant = `listen-${randomUUID()}`;
    const now = new Date();
    const results = await Promise.allSettled(Array.from({ length: 7 }, () => createListenSession(tenant, [STATUS], now)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(LISTEN_SESSIONS_PER_TENANT);
    for (const r of results.filter((x) => x.status === 'rejected')) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(LimitReachedError);
    expect(await liveListenSessions(tenant, now)).toHaveLength(LISTEN_SESSIONS_PER_TENANT);
    // A session that ended frees its slot for the next one.
    const afterEnd = later(now, (LISTEN_SESSION_SECONDS + 1) * 1000);
    expect((await createListenSession(tenant, [STATUS], afterEnd)).listen_session_id).toMatch(/^lsn_[0-4][a-f0-9]{31}$/);
  });

  it('cost a create one read and one write, and a create refused at the cap the read alone', async () => {
    const tenant = `listen-${randomUUID()}`;
    const now = new Date();
    const costs: string[][] = [];
    for (let i = 0; i <= LISTEN_SESSIONS_PER_TENANT; i++) {
      calls = [];
      await createListenSession(tenant, [STATUS], now).catch((error: Error) => expect(error).toBeInstanceOf(LimitReachedError));
      costs.push(calls);
    }
    expect(costs.slice(0, LISTEN_SESSIONS_PER_TENANT)).toEqual(Array.from({ length: LISTEN_SESSIONS_PER_TENANT }, () => ['QueryCommand', 'PutItemCommand']));
    expect(costs.at(-1)).toEqual(['QueryCommand']);
  });

  it('answer an empty page for a cursor at or past the settle bound, and never serve an entry past its time', async () => {
    const tenant = `listen-${randomUUID()}`;
    const start = new Date();
    const session = await createListenSession(tenant, [STATUS], start);
    // A reader whose clock runs ahead: its cursor is later than anything settled.
    const ahead = later(start, 60_000).toISOString();
    expect(await readListenFeed(tenant, session.listen_session_id, ahead, later(start, 10))).toMatchObject({ data: [], next_after: ahead });
    await feedListenSessions(tenant, await liveListenSessions(tenant, start), { event_id: 'evt_old', event_type: STATUS }, '{}', start);
    // Read after the entry's hour (the reader kept its session alive): TTL may not have deleted it, but it is not served.
    await tableClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.listenFeedEntry(tenant, session.listen_session_id, `${start.toISOString()}#evt_expired`),
          event_id: 'evt_expired',
          event_type: STATUS,
          payload: '{}',
          expires_at: Math.floor(start.getTime() / 1000) - 1,
        },
      }),
    );
    const read = await readListenFeed(tenant, session.listen_session_id, undefined, later(start, LISTEN_SETTLE_MS + 100));
    expect(read.data.map((e) => e.event_id)).toEqual(['evt_old']);
  });
});
