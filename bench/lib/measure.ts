/** Timing helpers: medians of repeated runs after a warm-up, and percentiles. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export const median = (values: readonly number[]) => percentile([...values].sort((a, b) => a - b), 50);

/** Median microseconds per call of `fn`, over `samples` samples of `batch` calls each. */
export async function microsPerCall(fn: () => unknown, options: { samples?: number; batch?: number; warmup?: number } = {}): Promise<number> {
  const { samples = 15, batch = 1, warmup = 3 } = options;
  for (let i = 0; i < warmup * batch; i++) await fn();
  const times: number[] = [];
  for (let s = 0; s < samples; s++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await fn();
    times.push(Number(process.hrtime.bigint() - start) / 1000 / batch);
  }
  return median(times);
}

export function progress(message: string): void {
  process.stderr.write(`  ${message}\n`);
}
