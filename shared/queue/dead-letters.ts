/**
 * The webhook dead-letter queue as on-call sees it: identifiers of what is in it, and the
 * move back to the webhook queue message by message (the SQS emulator has no
 * StartMessageMoveTask; on AWS the admin CLI starts one instead).
 */
import { DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { queueClient, queueUrls } from '../storage/clients.ts';

export interface DeadLetter {
  message_id: string;
  delivery_id: string;
  tenant: string;
  sent_at: string;
}

/** The queue's approximate depth and up to ten messages, identifiers only: payloads may hold personal data. */
export async function peekDeadLetters(): Promise<{ approximate: number; messages: DeadLetter[] }> {
  const webhookDlqUrl = queueUrls().deadLetter;
  const { Attributes } = await queueClient().send(new GetQueueAttributesCommand({ QueueUrl: webhookDlqUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
  const { Messages = [] } = await queueClient().send(
    new ReceiveMessageCommand({ QueueUrl: webhookDlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0, MessageSystemAttributeNames: ['SentTimestamp'] }),
  );
  return {
    approximate: Number(Attributes?.ApproximateNumberOfMessages ?? 0),
    messages: Messages.map((m) => {
      const body = parseBody(m.Body);
      return {
        message_id: m.MessageId ?? '?',
        delivery_id: String(body.delivery_id ?? '?'),
        tenant: String(body.tenant ?? '?'),
        sent_at: new Date(Number(m.Attributes?.SentTimestamp)).toISOString(),
      };
    }),
  };
}

/**
 * Moves dead letters back to the webhook queue, each sent before it is deleted (a crash in
 * between duplicates a message, which the sender's per-delivery claim absorbs; it never
 * loses one). `select` limits the move to some messages; the others stay, briefly hidden.
 */
export async function moveDeadLetters(select: (body: string) => boolean = () => true): Promise<number> {
  const { deadLetter: webhookDlqUrl, webhook: webhookQueueUrl } = queueUrls();
  let moved = 0;
  for (;;) {
    const { Messages = [] } = await queueClient().send(new ReceiveMessageCommand({ QueueUrl: webhookDlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 5 }));
    if (!Messages.length) return moved;
    for (const m of Messages) {
      if (!select(m.Body ?? '')) continue;
      await queueClient().send(new SendMessageCommand({ QueueUrl: webhookQueueUrl, MessageBody: m.Body ?? '' }));
      await queueClient().send(new DeleteMessageCommand({ QueueUrl: webhookDlqUrl, ReceiptHandle: m.ReceiptHandle! }));
      moved++;
    }
  }
}

function parseBody(body: string | undefined): Record<string, unknown> {
  try {
    return JSON.parse(body ?? '{}') as Record<string, unknown>;
  } catch {
    return {};
  }
}
