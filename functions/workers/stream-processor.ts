import type { DynamoDBStreamEvent } from 'aws-lambda';
import { DOMAIN_REACTIONS } from '#shared/orders/reactions.ts';
import { dispatchStream, type Reaction } from '#shared/stream/stream-dispatch.ts';
import { webhookFanOut } from '#shared/webhooks/fan-out.ts';

/** The reactions to table changes: the domain's, and the webhook fan-out of outbox events. */
export const reactions: Reaction[] = [...DOMAIN_REACTIONS, webhookFanOut];

export const handler = (event: DynamoDBStreamEvent) => dispatchStream(event, reactions);
