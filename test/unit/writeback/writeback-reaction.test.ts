/** The write-back of a decided result on in-memory ports: one attempt per run, a refusal or the last failure reported once. */
import { describe, expect, it } from 'vitest';
import { TenantConfigSchema } from '#shared/tenants/config.ts';
import { StoreRejected, WRITEBACK_ATTEMPTS } from '#shared/writeback/writeback.ts';
import { type WriteBackPorts, writeBackReaction } from '#shared/writeback/writeback-reaction.ts';
import { ports } from '../orders/memory-ports.ts';

/**
 * The write-back on in-memory ports that keep what the table keeps: the attempts claimed and
 * the due entry, which stays until the write-back is settled.
 */
function writeBackSetup(store: (attempt: number) => void) {
  const config = TenantConfigSchema.parse({
    markets: [{ country: 'DE', locale_default: 'de-DE', calling_days: [1, 2, 3, 4, 5, 6, 7] }],
    writeback: { enabled: true },
  });
  const stored = { attempts: 0, state: undefined as string | undefined, calls: 0, events: [] as unknown[], configReads: 0 };
  const writeBackPorts: WriteBackPorts = {
    tenantConfigOf: async () => {
      stored.configReads++;
      return config;
    },
    orders: ports('+4915100000000').orders,
    store: { writeBack: async () => store(++stored.calls) },
    attempts: {
      claim: async (result) => {
        if (stored.state !== undefined || Number(result.writeback_attempts ?? 0) !== stored.attempts) return false;
        stored.attempts++;
        return true;
      },
      settle: async (_result, state) => {
        stored.state = state;
        return true;
      },
    },
    putEventOnce: async (item) => void stored.events.push(item),
  };
  const result = {
    pk: 'T#acme#ORDER#o-1',
    sk: 'RESULT',
    entity: 'result',
    tenant: 'acme',
    external_order_id: 'o-1',
    business_outcome: 'confirmed',
    correlation_id: 'cor_1',
    final_order_snapshot: { confirmed: true },
    gsi2pk: 'STREAMDUE#3',
    gsi2sk: '2026-11-25T11:05:00.000Z',
  };
  /** The result's record, or the sweep's replay of the item as it now stands. */
  const run = async () => {
    await writeBackReaction(writeBackPorts).handle({ eventName: 'INSERT', newImage: { ...result, writeback_attempts: stored.attempts } });
  };
  return { stored, run, result, writeBackPorts };
}

describe('the write-back of a confirmed result', () => {
  it('tries once per run and leaves a failed attempt to the sweep, then reports the last failure once', async () => {
    const { stored, run } = writeBackSetup(() => {
      throw new Error('store_unavailable: 503');
    });
    await run();
    // One read of the tenant's configuration decides whether to write and where.
    expect(stored).toMatchObject({ calls: 1, attempts: 1, state: undefined, events: [], configReads: 1 });
    for (let sweep = 2; sweep <= WRITEBACK_ATTEMPTS; sweep++) await run();
    expect(stored).toMatchObject({ calls: WRITEBACK_ATTEMPTS, state: 'failed' });
    expect(stored.events).toHaveLength(1);
    expect(stored.events[0]).toMatchObject({
      event_type: 'commerce.writeback.failed.v1',
      data: { reason: 'store_unavailable: 503', attempts: WRITEBACK_ATTEMPTS },
    });
    await run();
    expect(stored.calls).toBe(WRITEBACK_ATTEMPTS);
  });

  it('reports a refusal by the store at once, and never writes back twice for a record that comes again', async () => {
    const refused = writeBackSetup(() => {
      throw new StoreRejected('store_rejected: no such order');
    });
    await refused.run();
    expect(refused.stored).toMatchObject({ calls: 1, state: 'failed' });
    expect(refused.stored.events[0]).toMatchObject({ data: { reason: 'store_rejected: no such order', attempts: 1 } });
    const written = writeBackSetup(() => undefined);
    await written.run();
    await written.run();
    const duplicate = { eventName: 'INSERT' as const, newImage: { ...written.result } };
    await writeBackReaction(written.writeBackPorts).handle(duplicate);
    expect(written.stored).toMatchObject({ calls: 1, state: 'written', events: [] });
  });
});
