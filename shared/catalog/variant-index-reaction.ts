/** The catalog indexer's reaction: a product that gains variants gets their variant-index entries. */
import { tenantOfKey } from '../storage/keys.ts';
import type { Reaction } from '../stream/stream-dispatch.ts';
import { productFromItem } from './products.ts';
import { indexNewVariants } from './variant-index.ts';

export const variantIndexReaction: Reaction = {
  name: 'variant-index',
  async handle(change) {
    if (change.eventName === 'REMOVE' || change.newImage?.entity !== 'product') return;
    const next = productFromItem(change.newImage);
    const previous = change.oldImage?.entity === 'product' ? productFromItem(change.oldImage) : undefined;
    await indexNewVariants(tenantOfKey(String(next.pk)), previous, next);
  },
};
