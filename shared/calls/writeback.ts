/**
 * The write-back port (contract-decisions section 9): a result the customer decided (confirmed,
 * modified or declined) is written back to the partner's store. The sandbox store accepts every
 * write-back except scenario 8's; a tenant's own endpoint is shared/webhooks/store-writeback.ts.
 */
import { createHash } from 'node:crypto';
import type { BusinessOutcome, Snapshot } from '../orders/order-schemas.ts';

export interface WriteBackRequest {
  tenant: string;
  external_order_id: string;
  business_outcome: BusinessOutcome;
  snapshot: Snapshot;
  correlation_id: string;
  /** The same for every attempt of one result's write-back: a store that has seen it keeps it once. */
  idempotency_key: string;
  scenario?: string;
}

/** The business outcomes a store is told of: those the customer decided on the call. */
export const WRITTEN_BACK_OUTCOMES: readonly BusinessOutcome[] = ['confirmed', 'modified', 'declined'];

/** The key a store deduplicates one result's write-backs by: the same on every attempt, saying nothing about the order. */
export const writeBackKey = (resultPk: string): string => `wb_${createHash('sha256').update(resultPk).digest('base64url').slice(0, 32)}`;

/** The store refused the write-back for good (as a 4xx would): trying again cannot help. */
export class StoreRejected extends Error {
  override readonly name = 'StoreRejected';
}

export interface StoreWriteBack {
  /** Resolves when written; rejects with a reason a partner can read (`StoreRejected` when final). */
  writeBack(request: WriteBackRequest): Promise<void>;
}

/**
 * Attempts per result: one from the result's stream record, the others from the reconciler's
 * sweep, the n-th waiting n stream-recovery intervals after the one before (never on the stream
 * path, where a wait would hold up every record behind it).
 */
export const WRITEBACK_ATTEMPTS = 5;

/** The attempts a result's write-back has made so far (kept on the result item). */
export const writeBackAttemptsOf = (result: Record<string, unknown>): number => Number(result.writeback_attempts ?? 0);

export const sandboxStore: StoreWriteBack = {
  async writeBack(request) {
    if (request.scenario === '8') throw new StoreRejected('store_rejected: the sandbox store refuses orders of scenario 8');
  },
};
