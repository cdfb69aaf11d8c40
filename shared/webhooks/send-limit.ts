/**
 * Test and replay deliveries a tenant asks for go through the sender every tenant shares: at
 * most 200 in 20 s per tenant (10 a second sustained), whatever its request rate, so a replay
 * storm cannot fill the queue ahead of other tenants' events. Past it: 429 with Retry-After.
 */
import { takeRateToken } from '../auth/dynamodb-adapters.ts';
import { RateLimitedError } from '../errors.ts';

export const WEBHOOK_SEND_LIMIT = { requests_per_second: 10, burst: 200 };
/** The limit as the contract words it. */
export const WEBHOOK_SEND_LIMIT_TEXT = `Test and replay deliveries together: at most ${WEBHOOK_SEND_LIMIT.burst} in ${WEBHOOK_SEND_LIMIT.burst / WEBHOOK_SEND_LIMIT.requests_per_second} s per tenant (429 \`rate_limited\` with Retry-After past it).`;

/** The tenant's own counter, beside its keys' ones (no key id starts with `#`). */
const SENDS_COUNTER = '#webhook-sends';

export async function admitWebhookSend(tenant: string, now: Date): Promise<void> {
  const wait = await takeRateToken({ tenant, keyId: SENDS_COUNTER, scopes: [] }, WEBHOOK_SEND_LIMIT, now);
  if (wait > 0) throw new RateLimitedError(wait);
}
