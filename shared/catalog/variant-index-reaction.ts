/** The catalog indexer's reaction: a product that gains variants gets their variant-index entries. */
import { hasStreamDue, tenantOfKey } from '../storage/keys.ts';
import type { Reaction } from '../stream/stream-dispatch.ts';
import { productFromItem } from './products.ts';
import { indexNewVariants } from './variant-index.ts';

/**
 * Every product write carries a stream-work entry until its variants are indexed, so a write
 * without one (the entry's own removal) brings no work. While the old image still carries its
 * entry, that write's indexing may never have run (its record skipped): all variants are
 * indexed, not only the new ones, so a later upsert repairs what a skipped record missed.
 */
export const variantIndexReaction: Reaction = {
  name: 'variant-index',
  async handle(change) {
    if (change.eventName === 'REMOVE' || change.newImage?.entity !== 'product' || !hasStreamDue(change.newImage)) return;
    const next = productFromItem(change.newImage);
    const previous = change.oldImage?.entity === 'product' && !hasStreamDue(change.oldImage) ? productFromItem(change.oldImage) : undefined;
    await indexNewVariants(tenantOfKey(String(next.pk)), previous, next);
  },
};
