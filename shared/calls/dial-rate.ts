/**
 * The deployment's dial rate: at most `perSecond` live dials in any one second, whichever
 * tenants they are for (Amazon Connect's StartOutboundVoiceContact quota is per account). A
 * dial claims a place in its second's counter before the order goes `in_call`; without one the
 * order stays scheduled and is looked at again in the next second, so no attempt is used up by
 * the rate. Tenants share it in the call sweep's turns (due-sweep.ts).
 *
 * A claim whose answer was lost and retried may count twice: the counter then refuses one dial
 * early, and that dial waits one second; it never lets one more through.
 */

import { tableName } from '../storage/clients.ts';
import { landed } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';
import { epochSeconds, expiresAfter } from '../storage/ttl.ts';
import type { DialRate } from './call-platform.ts';

export const dynamoDialRate =
  (perSecond: number): DialRate =>
  (now) =>
    landed({
      update: {
        TableName: tableName(),
        Key: keys.dialRate(epochSeconds(now)),
        UpdateExpression: 'ADD dials :one SET expires_at = :expires',
        ConditionExpression: 'attribute_not_exists(dials) OR dials < :limit',
        ExpressionAttributeValues: { ':one': 1, ':limit': perSecond, ':expires': expiresAfter(now, 3600) },
      },
    });
