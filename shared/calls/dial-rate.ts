/**
 * The deployment's dial rate: at most `perSecond` live dials in any one second, whichever
 * tenants they are for (Amazon Connect's StartOutboundVoiceContact quota is per account). A
 * dial claims a place in its second's counter before the order goes `in_call`; without one the
 * order stays scheduled and is looked at again in the next second, so no attempt is used up by
 * the rate.
 *
 * Tenants share it evenly: a window's item (CONTENDER_WINDOW_SECONDS) keeps how many dials each
 * tenant got in it and the last second each was refused one. While a tenant waits (it was
 * refused this second or the one before), no other tenant gets more than SHARE_SLACK dials
 * ahead of it over this window and the one before, so the one behind takes the next places. A
 * tenant that got its dials holds no one back. However large one tenant's backlog, the
 * others' dials keep pace with its own.
 *
 * A claim whose answer was lost and retried may count twice: the counter then refuses one dial
 * early, and that dial waits one second; it never lets one more through.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../storage/clients.ts';
import { landed } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';
import { epochSeconds, expiresAfter } from '../storage/ttl.ts';
import type { DialRate } from './call-platform.ts';

/** The window over which tenants' dials are counted and kept even. */
const CONTENDER_WINDOW_SECONDS = 10;
/** How many dials a tenant may be ahead of the one furthest behind: room for a contender whose next call is a moment from due. */
export const SHARE_SLACK = 2;

/** Whether `tenant` may dial now: it is not more than SHARE_SLACK dials ahead of any other contender in the window. */
export function withinShare(dialsByTenant: ReadonlyMap<string, number>, tenant: string): boolean {
  const behind = Math.min(...dialsByTenant.values());
  return (dialsByTenant.get(tenant) ?? 0) <= behind + SHARE_SLACK;
}

const DIALS_OF = 'dials#';
const WAITING_OF = 'waiting#';
/** A tenant refused a dial this many seconds ago or less still waits for one. */
const STILL_WAITING_SECONDS = 1;

interface ContenderWindow {
  dials: Map<string, number>;
  waitingSince: Map<string, number>;
}

const attributesOf = (item: Record<string, unknown> | undefined, prefix: string) =>
  new Map(
    Object.entries(item ?? {})
      .filter(([name]) => name.startsWith(prefix))
      .map(([name, value]) => [name.slice(prefix.length), Number(value)]),
  );

const windowOf = async (bucket: number): Promise<ContenderWindow> => {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.dialContenders(bucket), ConsistentRead: true }));
  return { dials: attributesOf(Item, DIALS_OF), waitingSince: attributesOf(Item, WAITING_OF) };
};

/** The asking tenant and every tenant still waiting for a dial at `second`, each with its dials over both windows. */
export function contenders(current: ContenderWindow, previous: ContenderWindow, second: number, asking: string): Map<string, number> {
  const waiting = [...new Set([...current.waitingSince.keys(), ...previous.waitingSince.keys()])].filter(
    (t) => Math.max(current.waitingSince.get(t) ?? 0, previous.waitingSince.get(t) ?? 0) >= second - STILL_WAITING_SECONDS,
  );
  return new Map([...new Set([asking, ...waiting])].map((t) => [t, (current.dials.get(t) ?? 0) + (previous.dials.get(t) ?? 0)]));
}

export function dynamoDialRate(perSecond: number): DialRate {
  const windowItem = (bucket: number, update: string, names: Record<string, string>, values: Record<string, unknown>, now: Date) =>
    tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.dialContenders(bucket),
        UpdateExpression: update,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ...values, ':expires': expiresAfter(now, 3600) },
      }),
    );
  // A function instance says once a second that its tenant waits: one write, however many of its orders are refused.
  const marked = new Set<string>();
  let markedSecond = 0;
  const waits = async (bucket: number, second: number, tenant: string, now: Date) => {
    if (second !== markedSecond) {
      marked.clear();
      markedSecond = second;
    }
    if (marked.has(tenant)) return;
    await windowItem(bucket, 'SET #waiting = :second, expires_at = :expires', { '#waiting': `${WAITING_OF}${tenant}` }, { ':second': second }, now);
    marked.add(tenant);
  };
  return async (now, tenant) => {
    const second = epochSeconds(now);
    const bucket = Math.floor(second / CONTENDER_WINDOW_SECONDS);
    // The tenants still waiting, with their dials in this window and the one before (so a new window does not start everyone even).
    const [current, previous] = await Promise.all([windowOf(bucket), windowOf(bucket - 1)]);
    if (!withinShare(contenders(current, previous, second, tenant), tenant)) {
      await waits(bucket, second, tenant, now);
      return 'behind_others';
    }
    const claimed = await landed({
      update: {
        TableName: tableName(),
        Key: keys.dialRate(second),
        UpdateExpression: 'ADD dials :one SET expires_at = :expires',
        ConditionExpression: 'attribute_not_exists(dials) OR dials < :limit',
        ExpressionAttributeValues: { ':one': 1, ':limit': perSecond, ':expires': expiresAfter(now, 3600) },
      },
    });
    // Each tenant's dials in the window, one number attribute each (`dials#<tenant>`): one write
    // per dial, which also ends the tenant's wait: a tenant that got a dial holds no one back.
    if (claimed) {
      marked.delete(tenant);
      await windowItem(
        bucket,
        'ADD #dials :one SET expires_at = :expires REMOVE #waiting',
        { '#dials': `${DIALS_OF}${tenant}`, '#waiting': `${WAITING_OF}${tenant}` },
        { ':one': 1 },
        now,
      );
      return 'placed';
    }
    await waits(bucket, second, tenant, now);
    return 'second_full';
  };
}
