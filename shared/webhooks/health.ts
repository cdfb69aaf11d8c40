/**
 * Subscription health (contract-decisions section 8), computed when it is read from the
 * recent deliveries themselves, so no attempt ever writes to one shared item (a busy
 * tenant's deliveries would make it a hot key).
 */
import type { Delivery } from './webhook-schemas.ts';

export interface WebhookHealth {
  status: 'healthy' | 'degraded' | 'failing';
  consecutive_failures: number;
  last_success_at: string | null;
  last_failure_at: string | null;
  success_rate_24h: number | null;
}

/** Counts over the newest deliveries are enough: health looks back 24 hours at most. */
export const HEALTH_SAMPLE = 1000;

/**
 * From deliveries newest first: failing after 8 consecutive failed attempts (a delivery's
 * whole budget) or under 50 % success over at least 10 attempts in 24 h; degraded while the
 * last attempt failed or under 95 % success; healthy otherwise.
 */
export function healthFromDeliveries(newestFirst: readonly Delivery[], now: Date): WebhookHealth {
  const since = now.getTime() - 24 * 3600_000;
  let consecutive = 0;
  let streak = true;
  let ok = 0;
  let failed = 0;
  let lastSuccess: string | null = null;
  let lastFailure: string | null = null;
  for (const d of newestFirst) {
    if (d.attempts === 0 || !d.last_attempt) continue;
    const delivered = d.status === 'delivered';
    const failures = delivered ? d.attempts - 1 : d.attempts;
    if (streak) {
      if (delivered) streak = false;
      else consecutive += failures;
    }
    if (delivered && (!lastSuccess || d.delivered_at! > lastSuccess)) lastSuccess = d.delivered_at;
    if (!delivered && (!lastFailure || d.last_attempt.at > lastFailure)) lastFailure = d.last_attempt.at;
    if (Date.parse(d.created_at) >= since) {
      ok += delivered ? 1 : 0;
      failed += failures;
    }
  }
  const total = ok + failed;
  const rate = total === 0 ? null : Math.round((ok / total) * 1000) / 1000;
  const status = consecutive >= 8 || (total >= 10 && rate! < 0.5) ? 'failing' : consecutive > 0 || (rate !== null && rate < 0.95) ? 'degraded' : 'healthy';
  return { status, consecutive_failures: consecutive, last_success_at: lastSuccess, last_failure_at: lastFailure, success_rate_24h: rate };
}
