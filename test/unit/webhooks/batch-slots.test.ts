/** A batch's messages of one endpoint claim its slots one at a time, and write no claim once it is found busy. */
import { describe, expect, it } from 'vitest';
import type { SlotClaim } from '#shared/webhooks/endpoint-guard.ts';
import { batchSlots } from '#shared/webhooks/sender.ts';

/** An endpoint with `free` slots: each claim is a write, refused (busy) once they are taken. */
function endpoint(free: number) {
  let writes = 0;
  let inFlight = 0;
  let mostAtOnce = 0;
  const claim = async (): Promise<SlotClaim> => {
    writes++;
    mostAtOnce = Math.max(mostAtOnce, ++inFlight);
    await new Promise((r) => setTimeout(r, 2));
    inFlight--;
    return free-- > 0 ? { kind: 'slot', lease: `l${writes}` } : { kind: 'wait', reason: 'busy', seconds: 1 };
  };
  return { claim, stats: () => ({ writes, mostAtOnce }) };
}

describe('batchSlots', () => {
  it('claims one at a time per endpoint, and after a busy answer writes no more claims for it', async () => {
    const slots = batchSlots();
    const a = endpoint(3);
    const answers = await Promise.all(Array.from({ length: 10 }, () => slots.claim('a', a.claim)));
    expect(answers.filter((c) => c.kind === 'slot')).toHaveLength(3);
    expect(answers.filter((c) => c.kind === 'wait' && c.reason === 'busy')).toHaveLength(7);
    expect(a.stats()).toEqual({ writes: 4, mostAtOnce: 1 });
  });

  it('keeps endpoints apart: one found busy does not hold another', async () => {
    const slots = batchSlots();
    const busy = endpoint(0);
    const open = endpoint(5);
    const [first, second] = await Promise.all([slots.claim('busy', busy.claim), slots.claim('open', open.claim)]);
    expect(first).toMatchObject({ kind: 'wait', reason: 'busy' });
    expect(second).toMatchObject({ kind: 'slot' });
    expect(await slots.claim('open', open.claim)).toMatchObject({ kind: 'slot' });
  });

  it('is per invocation: a new batch claims again', async () => {
    const busy = endpoint(0);
    await batchSlots().claim('a', busy.claim);
    await batchSlots().claim('a', busy.claim);
    expect(busy.stats().writes).toBe(2);
  });
});
