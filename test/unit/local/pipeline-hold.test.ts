import { describe, expect, it } from 'vitest';
import { pipelineFree, pipelineHeld, pipelineReleasedAt, withPipelineHeld } from '#local/pipeline-hold.ts';

const settledWithin = async (promise: Promise<unknown>, ms = 20) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe('holding the local pipeline', () => {
  it('lets the pollers read at once when nothing holds it, and only after the last of overlapping holds ends, however it ends', async () => {
    expect(pipelineHeld()).toBe(false);
    expect(await settledWithin(pipelineFree())).toBe(true);

    let endFirst: () => void = () => undefined;
    const first = withPipelineHeld(() => new Promise<void>((r) => (endFirst = r)));
    const second = withPipelineHeld(async () => {
      throw new Error('measured work failed');
    }).catch(() => 'failed');
    expect(await second).toBe('failed');
    expect(pipelineHeld()).toBe(true);
    const free = pipelineFree();
    expect(await settledWithin(free)).toBe(false);
    const before = Date.now();
    endFirst();
    await first;
    // What was written while held is read only now: the pipeline counts as busy from here.
    expect(pipelineReleasedAt()).toBeGreaterThanOrEqual(before);
    expect(await settledWithin(free)).toBe(true);
    expect(pipelineHeld()).toBe(false);
  });
});
