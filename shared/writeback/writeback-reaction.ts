/**
 * A decided result is written back to the store when the tenant enables it: one attempt per
 * run, claimed first so that a duplicate or replayed record never writes back twice. A failed
 * attempt waits on the result's due entry for the reconciler's sweep; a refusal by the store,
 * or the last attempt failing, is `commerce.writeback.failed.v1`. The tenant's configuration is
 * read once per attempt and decides both whether to write and where.
 */
import { DECIDED_OUTCOMES, type OrderResult } from '../calls/call-schemas.ts';
import { type EventRecord, eventItem } from '../events/outbox.ts';
import { lastStatusEventId, type OrderRepository } from '../orders/order.ts';
import { hasStreamDue, keys } from '../storage/keys.ts';
import type { Reaction } from '../stream/stream-dispatch.ts';
import type { TenantConfigOf } from '../tenants/config-cache.ts';
import { StoreRejected, type StoreWriteBack, WRITEBACK_ATTEMPTS, writeBackAttemptsOf, writeBackKey } from './writeback.ts';

export interface WriteBackPorts {
  tenantConfigOf: TenantConfigOf;
  orders: Pick<OrderRepository, 'read'>;
  store: StoreWriteBack;
  /** A result's write-back attempts: claimed one at a time, then settled (`writeback-state.ts`). */
  attempts: {
    claim(result: Record<string, unknown>, now: Date): Promise<boolean>;
    settle(result: Record<string, unknown>, state: 'written' | 'failed' | 'not_needed'): Promise<boolean>;
  };
  /** Writes an event item unless it exists (its key makes it once per cause). */
  putEventOnce(item: EventRecord & { pk: string; sk: string }): Promise<void>;
}

type StoredResult = OrderResult & { pk: string; sk: string; tenant: string; scenario?: string; writeback_attempts?: number; correlation_id?: string };
const resultFromItem = (item: Record<string, unknown>): StoredResult => item as unknown as StoredResult;

async function writeBackFailed(ports: WriteBackPorts, result: StoredResult, reason: string, attempts: number) {
  const order = await ports.orders.read(result.tenant, result.external_order_id);
  await ports.putEventOnce(
    eventItem(keys.orderWritebackEvent(result.pk), {
      event_type: 'commerce.writeback.failed.v1',
      tenant: result.tenant,
      external_order_id: result.external_order_id,
      correlation_id: order?.correlation_id ?? 'unknown',
      causation_id: order ? lastStatusEventId(order) : null,
      data: { reason, attempts },
      occurredAt: new Date(),
    }),
  );
}

export const writeBackReaction = (ports: WriteBackPorts): Reaction => ({
  name: 'write-back',
  async handle(change) {
    // Only the result's own record (or the sweep's replay of it): its later changes, the claims included, start nothing.
    if (change.eventName !== 'INSERT' || change.newImage?.entity !== 'result' || !hasStreamDue(change.newImage)) return;
    const result = resultFromItem(change.newImage);
    const config = await ports.tenantConfigOf(result.tenant);
    if (!DECIDED_OUTCOMES.includes(result.business_outcome) || !config.writeback.enabled) {
      await ports.attempts.settle(result, 'not_needed');
      return;
    }
    if (!(await ports.attempts.claim(result, new Date()))) return;
    const attempt = writeBackAttemptsOf(result) + 1;
    const request = {
      tenant: result.tenant,
      external_order_id: result.external_order_id,
      business_outcome: result.business_outcome,
      snapshot: result.final_order_snapshot,
      correlation_id: result.correlation_id ?? (await ports.orders.read(result.tenant, result.external_order_id))?.correlation_id ?? '',
      idempotency_key: writeBackKey(result.pk),
      ...(result.scenario ? { scenario: result.scenario } : {}),
    };
    // Only the store's answer decides the outcome: a failure to note it afterwards is the table's, retried as such.
    const failure = await ports.store.writeBack(request, { mode: config.mode, url: config.writeback.url }).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (failure === undefined) {
      await ports.attempts.settle(result, 'written');
      return;
    }
    if (!(failure instanceof StoreRejected) && attempt < WRITEBACK_ATTEMPTS) return;
    await writeBackFailed(ports, result, failure instanceof Error ? failure.message : String(failure), attempt);
    await ports.attempts.settle(result, 'failed');
  },
});
