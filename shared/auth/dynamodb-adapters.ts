/**
 * The authorizer's ports backed by the table: cached key lookup and nonce claims, and the
 * per-key rate windows of the tenant gate.
 */
import { randomInt } from 'node:crypto';
import { ttlCache } from '../caching/ttl-cache.ts';
import { tableName } from '../storage/clients.ts';
import { landed } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';
import { epochSeconds } from '../storage/ttl.ts';
import type { TenantConfig } from '../tenants/tenant-config.ts';
import { readApiKey } from './api-keys.ts';
import type { AuthPorts, KnownKey, Principal } from './authenticate.ts';
import type { KeySecrets } from './key-secrets.ts';

/** A key's record (its status above all) is read again at least this often: a revoked key stops working within it on every instance. */
export const KEY_RECORD_SECONDS = 5;
/** A key's secret never changes (it is derived from the id), so its derivation (a KMS call on AWS) is kept longer. */
const KEY_SECRET_SECONDS = 3600;

/** Keys are cached for `cacheSeconds`, at most KEY_RECORD_SECONDS, so a revoked key stops working within seconds. */
export function dynamoAuthPorts(options: { cacheSeconds: number; secrets: KeySecrets; now?: () => Date }): AuthPorts {
  const secrets = ttlCache<string>((keyId) => options.secrets.secretFor(keyId), KEY_SECRET_SECONDS * 1000);
  const keyCache = ttlCache<KnownKey | undefined>(async (keyId) => {
    const record = await readApiKey(keyId);
    if (!record) return undefined;
    return { tenant: record.tenant, scopes: record.scopes, secret: await secrets.get(keyId), status: record.status };
  }, Math.min(options.cacheSeconds, KEY_RECORD_SECONDS) * 1000);
  return {
    findKey: (keyId) => keyCache.get(keyId),
    // DynamoDB TTL deletes lazily, so an item whose expiry has passed counts as free. When the
    // connection drops after DynamoDB stored the nonce, the SDK's retry finds its own write and
    // succeeds instead of refusing the request as a replay.
    claimNonce: (principal: Principal, nonce: string, expiresAt: Date, at: Date) =>
      landed({
        put: {
          TableName: tableName(),
          Item: { ...keys.nonce(principal.tenant, principal.keyId, nonce), expires_at: epochSeconds(expiresAt) },
          ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now',
          ExpressionAttributeValues: { ':now': epochSeconds(at) },
        },
      }),
    now: options.now ?? (() => new Date()),
  };
}

/** Requests per second one window counter takes at most: a fifth of a partition's 1,000 writes/s. */
export const RATE_COUNTER_WRITES_PER_SECOND = 200;

/**
 * Per-key rate limit as fixed windows of burst / rate seconds, each admitting `burst`
 * requests: the long-run average is `requests_per_second` and a burst never exceeds `burst`
 * per window. One conditional update per request, on a partition key that moves every window.
 * A key allowed more than 200 requests/s counts on several counters (each request on one at
 * random, each admitting its share of the burst), so no counter's partition runs hot; the
 * admitted total then stays within a few percent of the limit.
 * Returns the seconds to wait, or 0 when the request is admitted.
 */
export async function takeRateToken(principal: Principal, limit: TenantConfig['rate_limit'], at: Date): Promise<number> {
  const windowMs = Math.max(1000, Math.round((limit.burst / limit.requests_per_second) * 1000));
  const windowStart = Math.floor(at.getTime() / windowMs) * windowMs;
  const windowEnd = windowStart + windowMs;
  const counters = Math.max(1, Math.ceil(limit.requests_per_second / RATE_COUNTER_WRITES_PER_SECOND));
  const counter = counters === 1 ? 0 : randomInt(counters);
  // A retried update counts the request once unless another request's update lands between the two (writeConditionally).
  const admitted = await landed({
    update: {
      TableName: tableName(),
      Key: keys.rateWindow(principal.tenant, principal.keyId, windowStart, counter),
      UpdateExpression: 'ADD request_count :one SET expires_at = :expires',
      ConditionExpression: 'attribute_not_exists(request_count) OR request_count < :burst',
      ExpressionAttributeValues: { ':one': 1, ':burst': Math.ceil(limit.burst / counters), ':expires': Math.ceil(windowEnd / 1000) + 60 },
    },
  });
  return admitted ? 0 : Math.max(1, Math.ceil((windowEnd - at.getTime()) / 1000));
}
