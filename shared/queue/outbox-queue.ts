/**
 * Nothing lives only in a queue: a record that needs a queue message carries that message
 * (`queue_message`) and a due time in the sparse gsi2 index. Whoever handles the message
 * moves the due time on or removes it; when it passes unhandled (the message was lost: a
 * failed SendMessage, a restarted in-memory emulator), the reconciler sends it again.
 * Consumers are idempotent per record, so a duplicate message is harmless.
 */
import { createHash } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { queueClient, queueRedeliveryGraceSeconds, queueUrls } from '../storage/clients.ts';
import { dueItems, postponeDue } from '../storage/due-index.ts';
import { DUE_INDEXES, keys } from '../storage/keys.ts';

export interface QueueMessage {
  body: string;
  delay_seconds?: number;
}

/**
 * The message group of a webhook queue message: its tenant. On a standard queue that makes it
 * an SQS fair queue: a tenant holding a large share of the messages in flight has its backlog
 * served after the other tenants' messages, so one tenant's pile never delays the others'.
 * (SQS takes 1 to 128 printable ASCII characters; any other tenant id goes by its hash.)
 */
export function messageGroupOf(body: string): { MessageGroupId?: string } {
  let tenant: unknown;
  try {
    tenant = (JSON.parse(body) as { tenant?: unknown }).tenant;
  } catch {
    return {};
  }
  if (typeof tenant !== 'string' || tenant === '') return {};
  return { MessageGroupId: /^[\x21-\x7e]{1,128}$/.test(tenant) ? tenant : createHash('sha256').update(tenant).digest('hex') };
}

export const dueAttributes = (recordPk: string, dueAt: Date, message: QueueMessage) => ({
  ...keys.due(recordPk, dueAt.toISOString()),
  queue_message: message,
});

export async function sendToWebhookQueue(message: QueueMessage): Promise<void> {
  await queueClient().send(
    new SendMessageCommand({
      QueueUrl: queueUrls().webhook,
      MessageBody: message.body,
      ...messageGroupOf(message.body),
      ...(message.delay_seconds ? { DelaySeconds: Math.min(900, Math.max(0, Math.round(message.delay_seconds))) } : {}),
    }),
  );
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
