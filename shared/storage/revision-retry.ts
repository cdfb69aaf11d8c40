/**
 * Compare-and-set writers re-read and decide again when another writer changed the item
 * first. The retries are bounded: an item that keeps changing surfaces as an error (a 5xx the
 * partner retries with the same Idempotency-Key, or a stream record the event source retries)
 * instead of holding a function until its timeout.
 */
import { RevisionConflict } from '../errors.ts';

export const MAX_REVISION_ATTEMPTS = 8;

/** Runs `attempt` (which reads, decides and writes) until it lands without a RevisionConflict. */
export async function retryOnRevisionConflict<T>(attempt: () => Promise<T>, attempts = MAX_REVISION_ATTEMPTS): Promise<T> {
  for (let tried = 1; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof RevisionConflict) || tried >= attempts) throw error;
    }
  }
}
