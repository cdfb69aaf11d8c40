/**
 * The deployment's dial rate: at most `perSecond` live dials in any one second, whichever
 * tenants they are for (Amazon Connect's StartOutboundVoiceContact quota is per account). A
 * dial claims a place in its second's counter before the order goes `in_call`; without one the
 * order stays scheduled and is looked at again in the next second, so no attempt is used up by
 * the rate.
 *
 * Tenants share it evenly: a window's item (CONTENDER_WINDOW_SECONDS) keeps which tenants want
 * to dial and how many dials each got in it, and a tenant more than SHARE_SLACK dials ahead of
 * the contender furthest behind (over this window and the one before) waits, so the one behind
 * takes the next places. However large one tenant's backlog, the others' dials keep pace with its own.
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

const windowOf = async (bucket: number): Promise<Map<string, number>> => {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.dialContenders(bucket), ConsistentRead: true }));
  const tenants = [...((Item?.tenants as Set<string> | undefined) ?? [])];
  return new Map(tenants.map((t) => [t, Number(Item?.[`${DIALS_OF}${t}`] ?? 0)]));
};

export function dynamoDialRate(perSecond: number): DialRate {
  // A function instance says once a window that its tenant wants to dial: one write, however many of its orders wait.
  const registered = new Set<string>();
  let registeredBucket = 0;
  const register = async (bucket: number, tenant: string, now: Date) => {
    if (bucket !== registeredBucket) {
      registered.clear();
      registeredBucket = bucket;
    }
    if (registered.has(tenant)) return;
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.dialContenders(bucket),
        UpdateExpression: 'ADD tenants :tenant SET expires_at = :expires',
        ExpressionAttributeValues: { ':tenant': new Set([tenant]), ':expires': expiresAfter(now, 3600) },
      }),
    );
    registered.add(tenant);
  };
  // Each tenant's dials in the window, one number attribute each (`dials#<tenant>`): one write per dial.
  const counted = (bucket: number, tenant: string) =>
    tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.dialContenders(bucket),
        UpdateExpression: 'ADD #dials :one',
        ExpressionAttributeNames: { '#dials': `${DIALS_OF}${tenant}` },
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  return async (now, tenant) => {
    const second = epochSeconds(now);
    const bucket = Math.floor(second / CONTENDER_WINDOW_SECONDS);
    await register(bucket, tenant, now);
    // This window's contenders, with their dials in it and in the window before (so a new window does not start everyone even).
    const [current, previous] = await Promise.all([windowOf(bucket), windowOf(bucket - 1)]);
    const dials = new Map([...current].map(([t, n]) => [t, n + (previous.get(t) ?? 0)]));
    if (!withinShare(dials, tenant)) return false;
    const claimed = await landed({
      update: {
        TableName: tableName(),
        Key: keys.dialRate(second),
        UpdateExpression: 'ADD dials :one SET expires_at = :expires',
        ConditionExpression: 'attribute_not_exists(dials) OR dials < :limit',
        ExpressionAttributeValues: { ':one': 1, ':limit': perSecond, ':expires': expiresAfter(now, 3600) },
      },
    });
    if (claimed) await counted(bucket, tenant);
    return claimed;
  };
}
