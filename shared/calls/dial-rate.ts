/**
 * The deployment's dial rate: at most `perSecond` live dials in any one second, whichever
 * tenants they are for (Amazon Connect's StartOutboundVoiceContact quota is per account). A
 * dial claims a place in its second's counter before the order goes `in_call`; without one the
 * order stays scheduled and is looked at again in the next second, so no attempt is used up by
 * the rate.
 *
 * Tenants share it in turn: each second's item also collects the tenants that wanted to dial in
 * it, and while more tenants want to dial than the rate has places, only `perSecond` of the
 * previous second's contenders (sorted, rotated by the second) may claim one. Over as many
 * seconds as there are contenders, each gets the same number of dials, however large its
 * backlog; a tenant new to the contention competes at once and takes its turn from the next second.
 *
 * A claim whose answer was lost and retried may count twice: the counter then refuses one dial
 * early, and that dial waits one second; it never lets one more through.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { landed } from '../storage/conditional.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { epochSeconds, expiresAfter } from '../storage/ttl.ts';
import type { DialRate } from './call-platform.ts';

/** Whether `tenant` is among the `perSecond` contenders whose turn `second` is. */
export function inTurn(contenders: readonly string[], tenant: string, second: number, perSecond: number): boolean {
  const sorted = [...contenders].sort();
  const index = sorted.indexOf(tenant);
  if (sorted.length <= perSecond || index < 0) return true;
  const offset = (((index - second * perSecond) % sorted.length) + sorted.length) % sorted.length;
  return offset < perSecond;
}

export function dynamoDialRate(perSecond: number): DialRate {
  // A function instance says once a second that its tenant wants to dial: one write, however many of its orders wait.
  const registered = new Set<string>();
  let registeredSecond = 0;
  const register = async (second: number, tenant: string, now: Date) => {
    if (second !== registeredSecond) {
      registered.clear();
      registeredSecond = second;
    }
    if (registered.has(tenant)) return;
    registered.add(tenant);
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.dialRate(second),
        UpdateExpression: 'ADD contenders :tenant SET expires_at = :expires',
        ExpressionAttributeValues: { ':tenant': new Set([tenant]), ':expires': expiresAfter(now, 3600) },
      }),
    );
  };
  return async (now, tenant) => {
    const second = epochSeconds(now);
    const [previous] = await Promise.all([
      tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.dialRate(second - 1), ProjectionExpression: 'contenders' })),
      register(second, tenant, now),
    ]);
    const contenders = [...((previous.Item?.contenders as Set<string> | undefined) ?? [])];
    if (!inTurn(contenders, tenant, second, perSecond)) return false;
    return landed({
      update: {
        TableName: tableName(),
        Key: keys.dialRate(second),
        UpdateExpression: 'ADD dials :one SET expires_at = :expires',
        ConditionExpression: 'attribute_not_exists(dials) OR dials < :limit',
        ExpressionAttributeValues: { ':one': 1, ':limit': perSecond, ':expires': expiresAfter(now, 3600) },
      },
    });
  };
}
