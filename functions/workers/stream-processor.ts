import type { DynamoDBStreamEvent } from 'aws-lambda';
import { dispatchStream, type Reaction } from '../../shared/queue/stream-dispatch.ts';

/** The reactions to table changes; webhook fan-out and order qualification register here. */
export const reactions: Reaction[] = [];

export const handler = (event: DynamoDBStreamEvent) => dispatchStream(event, reactions);
