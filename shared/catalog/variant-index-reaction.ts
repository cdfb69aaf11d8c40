/** The catalog indexer's reaction: a product that gains variants gets their variant-index entries. */
import { tenantOfKey } from '../storage/keys.ts';
import type { Reaction } from '../stream/stream-dispatch.ts';
import type { StoredProduct } from './products.ts';
import { indexNewVariants } from './variant-index.ts';

export const variantIndexReaction: Reaction = {
  name: 'variant-index',
  async handle(change) {
    if (change.eventName === 'REMOVE' || change.newImage?.entity !== 'product') return;
    const next = change.newImage as StoredProduct & { pk: string };
    const previous = change.oldImage?.entity === 'product' ? (change.oldImage as StoredProduct) : undefined;
    await indexNewVariants(tenantOfKey(next.pk), previous, next);
  },
};
