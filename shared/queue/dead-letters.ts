/**
 * The webhook dead-letter queue as on-call sees it: identifiers of what is in it, and the
 * move back to the webhook queue message by message (the SQS emulator has no
 * StartMessageMoveTask; on AWS the admin CLI starts one instead).
 */

import { DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { queueClient, queueUrls } from '../storage/clients.ts';
import { type DeliveryMessage, parseDeliveryMessage, webhookQueue } from './webhook-queue.ts';

export interface DeadLetter {
  message_id: string;
  delivery_id: string;
  tenant: string;
  sent_at: string;
}

/** The queue's approximate depth and up to ten messages, identifiers only: payloads may hold personal data. */
export async function peekDeadLetters(): Promise<{ approximate: number; visible: number; inFlight: number; messages: DeadLetter[] }> {
  const webhookDlqUrl = queueUrls().deadLetter;
  // Every message the queue holds: those visible now and those a reader (a move, a peek) has in hand.
  const { Attributes } = await queueClient().send(
    new GetQueueAttributesCommand({
      QueueUrl: webhookDlqUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  const visible = Number(Attributes?.ApproximateNumberOfMessages ?? 0);
  const inFlight = Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0);
  const { Messages = [] } = await queueClient().send(
    new ReceiveMessageCommand({ QueueUrl: webhookDlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0, MessageSystemAttributeNames: ['SentTimestamp'] }),
  );
  return {
    approximate: visible + inFlight,
    visible,
    inFlight,
    messages: Messages.map((m) => {
      const message = parseDeliveryMessage(m.Body);
      return {
        message_id: m.MessageId ?? '?',
        delivery_id: message?.delivery_id ?? '?',
        tenant: message?.tenant ?? '?',
        sent_at: new Date(Number(m.Attributes?.SentTimestamp)).toISOString(),
      };
    }),
  };
}

export interface MoveOptions {
  /** Which messages go back (by their tenant and delivery id); the others stay. */
  select?: (message: DeliveryMessage) => boolean | Promise<boolean>;
  /** At most this many messages per second. */
  ratePerSecond?: number;
  onProgress?: (moved: number) => void;
}

/**
 * Moves dead letters back to the webhook queue, each sent before it is deleted (a crash in
 * between duplicates a message, which the sender's per-delivery claim absorbs; it never
 * loses one). Messages not selected stay.
 */
export function moveDeadLetters(options: MoveOptions = {}): Promise<number> {
  const queue = webhookQueue();
  return eachDeadLetter(options, (message) => queue.send(message));
}

/**
 * Deletes the selected dead letters: those whose delivery needs nothing more (recovered: its
 * event went out again as another delivery), so the queue's depth, and its alarm, count only
 * what still waits for someone.
 */
export function discardDeadLetters(select: NonNullable<MoveOptions['select']>): Promise<number> {
  return eachDeadLetter({ select }, async () => undefined);
}

/**
 * Hands each selected dead letter to `handle`, then deletes it; ends when a receive brings only
 * messages already looked at (or none). A message that is not a delivery message stays where it
 * is, for a person to look at: sending it on would only bring it back.
 */
async function eachDeadLetter(options: MoveOptions, handle: (message: DeliveryMessage) => Promise<void>): Promise<number> {
  const webhookDlqUrl = queueUrls().deadLetter;
  const seen = new Set<string>();
  let handled = 0;
  for (;;) {
    const { Messages = [] } = await queueClient().send(new ReceiveMessageCommand({ QueueUrl: webhookDlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 5 }));
    const fresh = Messages.filter((m) => !seen.has(m.MessageId ?? ''));
    if (!fresh.length) return handled;
    for (const m of fresh) {
      seen.add(m.MessageId ?? '');
      const message = parseDeliveryMessage(m.Body);
      if (!message || (options.select && !(await options.select(message)))) continue;
      await handle(message);
      await queueClient().send(new DeleteMessageCommand({ QueueUrl: webhookDlqUrl, ReceiptHandle: m.ReceiptHandle! }));
      handled++;
      options.onProgress?.(handled);
      if (options.ratePerSecond) await new Promise((resolve) => setTimeout(resolve, 1000 / options.ratePerSecond!));
    }
  }
}
