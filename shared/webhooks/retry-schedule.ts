/** The delivery retry schedule of contract-decisions section 8. */
export const MAX_ATTEMPTS = 8;
/** Waits before attempts 2 to 8, in seconds. */
export const BACKOFF_SECONDS = [30, 120, 600, 1800, 5400, 14_400, 28_800] as const;

/** Delay before the next attempt after `attempts` failed ones, with ±10 % jitter; `scale` shrinks it for tests. */
export function backoffSeconds(attempts: number, scale = 1, random = Math.random): number {
  const base = BACKOFF_SECONDS[Math.min(attempts, BACKOFF_SECONDS.length) - 1]!;
  return base * scale * (0.9 + 0.2 * random());
}
