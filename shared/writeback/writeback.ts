/**
 * The write-back port (contract-decisions section 9): a result the customer decided (confirmed,
 * modified or declined) is written back to the partner's store. The sandbox store accepts every
 * write-back except scenario 8's; a tenant's own endpoint is `store-endpoint.ts`.
 */
import { createHash } from 'node:crypto';
import type { BusinessOutcome, Snapshot } from '../calls/call-schemas.ts';
import type { TenantMode } from '../tenants/tenant-config.ts';

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

/** The key a store deduplicates one result's write-backs by: the same on every attempt, saying nothing about the order. */
export const writeBackKey = (resultPk: string): string => `wb_${createHash('sha256').update(resultPk).digest('base64url').slice(0, 32)}`;

/** The store refused the write-back for good (as a 4xx would): trying again cannot help. */
export class StoreRejected extends Error {
  override readonly name = 'StoreRejected';
}

/** Where a tenant's results go, from its configuration (read once per write-back). */
export interface WriteBackTarget {
  mode: TenantMode;
  /** The tenant's own endpoint, where the platform team configured one. */
  url: string | null;
}

export interface StoreWriteBack {
  /** Resolves when written; rejects with a reason a partner can read (`StoreRejected` when final). */
  writeBack(request: WriteBackRequest, target: WriteBackTarget): Promise<void>;
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
