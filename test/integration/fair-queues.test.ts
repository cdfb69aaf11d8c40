/**
 * The local SQS emulator serves a standard queue with message groups as SQS fair queues do:
 * while one tenant has messages in flight, another tenant's message is returned first,
 * however many of the first tenant's wait ahead of it.
 */
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { fairOrder } from '#local/fair-queues.ts';
import { messageGroupOf } from '#shared/queue/webhook-queue.ts';
import { queueClient } from '#shared/storage/clients.ts';

describe('fair queues in the local SQS emulator', () => {
  it('orders ready messages by how many their group has in flight, arrival order within a group', () => {
    const m = (group: string, n: number) => ({ messageGroupId: group, n });
    const ordered = fairOrder(
      [m('a', 1), m('a', 2), m('b', 1), m('c', 1), m('a', 3)],
      [{ messageGroupId: 'a' }, { messageGroupId: 'a' }, { messageGroupId: 'c' }],
    );
    expect(ordered.map((x) => `${x.messageGroupId}${x.n}`)).toEqual(['b1', 'c1', 'a1', 'a2', 'a3']);
  });

  it('returns a quiet tenant’s message before a busy tenant’s backlog', async () => {
    const sqs = queueClient();
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `fair-${Date.now()}` }));
    try {
      const send = (tenant: string, n: number) =>
        sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify({ tenant, n }), MessageGroupId: messageGroupOf(tenant) }));
      for (let n = 0; n < 30; n++) await send('noisy', n);
      // The noisy tenant has ten messages in flight, twenty more waiting.
      const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60 }));
      const label = (m: { Body?: string }) => `${JSON.parse(m.Body!).tenant}-${JSON.parse(m.Body!).n}`;
      expect(first.Messages?.map(label)).toEqual(Array.from({ length: 10 }, (_, n) => `noisy-${n}`));
      await send('quiet', 0);
      const next = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1, VisibilityTimeout: 60 }));
      expect(next.Messages?.map(label)).toEqual(['quiet-0']);
    } finally {
      await sqs.send(new DeleteQueueCommand({ QueueUrl }));
    }
  });
});
