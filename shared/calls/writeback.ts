/**
 * The write-back port (contract-decisions section 9): a confirmed snapshot is written back to
 * the partner's store. The sandbox store accepts every write-back except scenario 8's.
 */
import type { Snapshot } from '../orders/order-schemas.ts';

export interface WriteBackRequest {
  tenant: string;
  external_order_id: string;
  snapshot: Snapshot;
  scenario?: string;
}

export interface StoreWriteBack {
  /** Resolves when written; rejects with a reason a partner can read. */
  writeBack(request: WriteBackRequest): Promise<void>;
}

export const WRITEBACK_ATTEMPTS = 3;

export const sandboxStore: StoreWriteBack = {
  async writeBack(request) {
    if (request.scenario === '8') throw new Error('store_rejected: the sandbox store refuses orders of scenario 8');
  },
};
