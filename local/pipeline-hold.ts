/**
 * Holding the local pipeline: while held, the stream and queue pollers read nothing new and the
 * schedules start no run (work already in hand finishes). On AWS the pipeline runs in functions
 * of its own and DynamoDB scales with it; on one machine it shares the cores and DynamoDB Local
 * with whatever a benchmark measures, so a measurement of one request's own work holds it.
 */
let holds = 0;
let released: Promise<void> = Promise.resolve();
let release: () => void = () => undefined;
let releasedAt = 0;

/**
 * When the last hold ended: the pipeline is not settled until it has been quiet for a while
 * after it, as the pollers only then read what was written while it was held.
 */
export const pipelineReleasedAt = (): number => releasedAt;

/** True while held. */
export const pipelineHeld = (): boolean => holds > 0;

/** Resolves at once, or when the last hold ends. */
export const pipelineFree = (): Promise<void> => released;

/** Runs `work` with the pipeline held; it reads again once `work` ends, however it ends. */
export async function withPipelineHeld<T>(work: () => Promise<T>): Promise<T> {
  if (holds++ === 0) released = new Promise((resolve) => (release = resolve));
  try {
    return await work();
  } finally {
    if (--holds === 0) {
      releasedAt = Date.now();
      release();
    }
  }
}
