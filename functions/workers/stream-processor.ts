import type { DynamoDBStreamEvent } from 'aws-lambda';
import { DOMAIN_REACTIONS } from '../../shared/orders/reactions.ts';
import { dispatchStream, type Reaction } from '../../shared/queue/stream-dispatch.ts';

/** The reactions to table changes: domain reactions, then (issue 6) the webhook fan-out. */
export const reactions: Reaction[] = [...DOMAIN_REACTIONS];

export const handler = (event: DynamoDBStreamEvent) => dispatchStream(event, reactions);
