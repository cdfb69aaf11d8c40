/**
 * The webhook queue, the one adapter every sender of its messages uses: a message names the
 * delivery to look at now, is written as JSON once and parsed once, at the edge, into a typed
 * value (`parseDeliveryMessage`), and carries its tenant as the message group.
 */
import { createHash } from 'node:crypto';
import { ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { queueClient, queueUrls } from '../storage/clients.ts';

/** A queue message: which delivery to look at now; `from_dead_letter_queue` marks a message put in the DLQ (so a redrive may retry). */
export interface DeliveryMessage {
  tenant: string;
  delivery_id: string;
  from_dead_letter_queue?: boolean;
  /** How often this message already waited for a busy endpoint (each wait doubles). */
  busy_waits?: number;
}

/** SQS's longest message delay. */
export const MAX_DELAY_SECONDS = 900;

/** The message's bytes on the queue (and in a record's stored `queue_message`). */
export const deliveryMessageBody = (message: DeliveryMessage): string => JSON.stringify(message);

/** A queue message's body as a delivery message, or undefined when it is not one (never a cast). */
export function parseDeliveryMessage(body: string | undefined): DeliveryMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body ?? '');
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { tenant, delivery_id, from_dead_letter_queue, busy_waits } = value as Record<string, unknown>;
  if (typeof tenant !== 'string' || tenant === '' || typeof delivery_id !== 'string' || delivery_id === '') return undefined;
  return {
    tenant,
    delivery_id,
    ...(from_dead_letter_queue === true ? { from_dead_letter_queue: true } : {}),
    ...(typeof busy_waits === 'number' && Number.isInteger(busy_waits) && busy_waits > 0 ? { busy_waits } : {}),
  };
}

/** The identifiers a body names, whatever their type: for the log line of a message that is not a delivery message. */
export function identifiersOf(body: string): { tenant?: unknown; delivery_id?: unknown } {
  try {
    const { tenant, delivery_id } = JSON.parse(body) as Record<string, unknown>;
    return { tenant, delivery_id };
  } catch {
    return {};
  }
}

/**
 * The message group of a webhook queue message: its tenant. On a standard queue that makes it
 * an SQS fair queue: a tenant holding a large share of the messages in flight has its backlog
 * served after the other tenants' messages, so one tenant's pile never delays the others'.
 * (SQS takes 1 to 128 printable ASCII characters; any other tenant id goes by its hash.)
 */
export const messageGroupOf = (tenant: string): string => (/^[\x21-\x7e]{1,128}$/.test(tenant) ? tenant : createHash('sha256').update(tenant).digest('hex'));

export interface WebhookQueue {
  /** Sends the message, delayed by up to SQS's 900 s. */
  send(message: DeliveryMessage, delaySeconds?: number): Promise<void>;
  /** Puts the message in the dead-letter queue (the sender marks it `from_dead_letter_queue`, so a redrive earns one more attempt). */
  sendToDeadLetterQueue(message: DeliveryMessage): Promise<void>;
  /** Keeps a received message out of sight for `seconds` (a retry's backoff). */
  retryIn(receiptHandle: string, seconds: number): Promise<void>;
}

/** The webhook queue and its dead-letter queue where the deployment put them. */
export function webhookQueue(urls: { webhook: string; deadLetter: string } = queueUrls()): WebhookQueue {
  return {
    async send(message, delaySeconds = 0) {
      const delay = Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.round(delaySeconds)));
      await queueClient().send(
        new SendMessageCommand({
          QueueUrl: urls.webhook,
          MessageBody: deliveryMessageBody(message),
          MessageGroupId: messageGroupOf(message.tenant),
          ...(delay ? { DelaySeconds: delay } : {}),
        }),
      );
    },
    async sendToDeadLetterQueue(message) {
      await queueClient().send(new SendMessageCommand({ QueueUrl: urls.deadLetter, MessageBody: deliveryMessageBody(message) }));
    },
    async retryIn(receiptHandle, seconds) {
      await queueClient().send(new ChangeMessageVisibilityCommand({ QueueUrl: urls.webhook, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
    },
  };
}
