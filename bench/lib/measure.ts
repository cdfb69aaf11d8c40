/** Timing helpers: medians of repeated runs after a warm-up, and percentiles. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/**
 * Medians of `fn` and of its `floor`, measured in alternation (fn, floor, fn, floor, …) so
 * both see the same machine: on a shared 2-core VM the speed drifts by a third within a
 * minute, and a figure and a floor measured one after the other compare two machines.
 */
export async function pairedMicrosPerCall(
  fn: () => unknown,
  floor: () => unknown,
  options: { samples?: number; batch?: number; warmup?: number } = {},
): Promise<{ value: number; floor: number }> {
  const { samples = 31, batch = 1, warmup = 3 } = options;
  const sample = async (f: () => unknown) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await f();
    return Number(process.hrtime.bigint() - start) / 1000 / batch;
  };
  for (let i = 0; i < warmup; i++) {
    await sample(fn);
    await sample(floor);
  }
  const values: number[] = [];
  const floors: number[] = [];
  for (let s = 0; s < samples; s++) {
    values.push(await sample(fn));
    floors.push(await sample(floor));
  }
  return { value: median(values), floor: median(floors) };
}

export function progress(message: string): void {
  process.stderr.write(`  ${message}\n`);
}
