/**
 * Polls `probe` until `done` holds of its value or `timeoutMs` has passed, and returns the
 * last value either way: the caller's assertion or error then says what was seen instead.
 * The pipeline is asynchronous, so most end-to-end checks wait through this one loop.
 */
export async function eventually<T>(
  probe: () => T | Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 30_000, everyMs = 200 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
