/**
 * The local runtime's queues keep their messages across a restart, as SQS does, and a
 * restart ends the receives of the run that was killed: a message in hand when it died is
 * ready again at once, not after its visibility timeout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { describe, expect, it } from 'vitest';
import { releaseAbandonedReceives } from '#local/resources.ts';
import { onLoopback } from '#local/stack.ts';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

async function emulator(dataDir: string) {
  const server = await onLoopback(() => startFauxqs({ port: 0, host: '127.0.0.1', logger: false, dataDir }));
  const client = new SQSClient({ endpoint: server.address, region: 'us-east-1', credentials });
  const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: 'q', Attributes: { VisibilityTimeout: '300' } }));
  const receive = async () => (await client.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }))).Messages ?? [];
  return { server, client, QueueUrl: QueueUrl!, receive };
}

describe('the local queues across a restart', () => {
  it('keep a waiting message, and make a message in hand at the kill ready at once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'commerce-sqs-'));
    try {
      const first = await emulator(dataDir);
      await first.client.send(new SendMessageCommand({ QueueUrl: first.QueueUrl, MessageBody: 'in hand' }));
      expect((await first.receive()).map((m) => m.Body)).toEqual(['in hand']);
      await first.client.send(new SendMessageCommand({ QueueUrl: first.QueueUrl, MessageBody: 'waiting' }));
      await first.server.stop();

      releaseAbandonedReceives(dataDir);
      const second = await emulator(dataDir);
      try {
        expect((await second.receive()).map((m) => m.Body).sort()).toEqual(['in hand', 'waiting']);
      } finally {
        await second.server.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('keep a message in hand invisible across a restart without the release, as SQS would', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'commerce-sqs-'));
    try {
      const first = await emulator(dataDir);
      await first.client.send(new SendMessageCommand({ QueueUrl: first.QueueUrl, MessageBody: 'in hand' }));
      expect(await first.receive()).toHaveLength(1);
      await first.server.stop();
      const second = await emulator(dataDir);
      try {
        expect(await second.receive()).toEqual([]);
      } finally {
        await second.server.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
