/**
 * A queue message handed back to its queue to be received again soon: its visibility timeout
 * set to `seconds` (SQS ChangeMessageVisibility), instead of the queue's own (minutes). Its
 * consumer then reports it failed, and the event source leaves it on the queue.
 */
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import { queueClient } from '../storage/clients.ts';

/** Makes the message of `receiptHandle` on `queueUrl` visible again in `seconds`. */
export const redeliverIn = (queueUrl: string, receiptHandle: string, seconds: number): Promise<unknown> =>
  queueClient().send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
