import type { DynamoDBStreamEvent } from 'aws-lambda';
import { variantIndexReaction } from '#shared/catalog/variant-index-reaction.ts';
import { dispatchStream, type Reaction } from '#shared/stream/stream-dispatch.ts';
import { streamWorkDone } from '#shared/stream/stream-work.ts';

/**
 * The table stream's second consumer: keeps the variant index current. It has its own
 * consumer so that a large catalog import (up to 50,000 new variants per batch) never
 * delays order processing or webhooks in the stream processor. Its last reaction notes the
 * product's stream work done (the reconciler replays it otherwise).
 */
export const catalogReactions: Reaction[] = [variantIndexReaction, streamWorkDone('catalog-indexer')];

export const handler = (event: DynamoDBStreamEvent) => dispatchStream(event, catalogReactions);
