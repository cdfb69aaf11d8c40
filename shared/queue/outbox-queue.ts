/**
 * Nothing lives only in a queue: a record that needs a queue message carries that message
 * (`queue_message`) and a due time in the sparse gsi2 index. Whoever handles the message
 * moves the due time on or removes it; when it passes unhandled (the message was lost: a
 * failed SendMessage, a restarted in-memory emulator), the reconciler sends it again.
 * Consumers are idempotent per record, so a duplicate message is harmless.
 */
import { queueRedeliveryGraceSeconds } from '../storage/clients.ts';
import { dueItems, postponeDue } from '../storage/due-index.ts';
import { DUE_INDEXES, keys } from '../storage/keys.ts';
import { parseDeliveryMessage, type WebhookQueue, webhookQueue } from './webhook-queue.ts';

/** The message a record keeps beside its due time: the queue message's body and its delay. */
export interface QueueMessage {
  body: string;
  delay_seconds?: number;
}

export const dueAttributes = (recordPk: string, dueAt: Date, message: QueueMessage) => ({
  ...keys.due(recordPk, dueAt.toISOString()),
  queue_message: message,
});

/** Sends a record's stored message to the webhook queue; a stored body that is not a delivery message is refused loudly. */
export async function sendToWebhookQueue(message: QueueMessage, queue: WebhookQueue = webhookQueue()): Promise<void> {
  const parsed = parseDeliveryMessage(message.body);
  if (!parsed) throw new Error('a stored queue message is not a delivery message');
  await queue.send(parsed, message.delay_seconds);
}

/**
 * Re-sends the message of every record due by `dueBy` (by default: overdue now); each gets a new
 * due time counted from `now`. Returns how many.
 */
export async function reconcileOverdue(now: Date, send: (message: QueueMessage) => Promise<void> = sendToWebhookQueue, dueBy: Date = now): Promise<number> {
  let resent = 0;
  for await (const item of dueItems(DUE_INDEXES.queueMessages, dueBy)) {
    if (await postponeDue(item, new Date(now.getTime() + queueRedeliveryGraceSeconds() * 1000))) {
      await send({ body: (item.queue_message as QueueMessage).body });
      resent++;
    }
  }
  return resent;
}
