/**
 * SQS fair queues for the emulator. On AWS, a standard queue whose messages carry a
 * MessageGroupId is a fair queue: while one group (a tenant) has many messages in flight, the
 * others' messages are returned first, so one tenant's backlog does not make the rest wait
 * (https://aws.amazon.com/blogs/compute/building-resilient-multi-tenant-systems-with-amazon-sqs-fair-queues/).
 * fauxqs (2.4) returns a standard queue's messages strictly in arrival order, and drops a
 * standard queue's MessageGroupId; this teaches its queues the fair order: before each
 * receive, ready messages are ordered by how many messages their group has in flight (fewest
 * first), arrival order kept within a group. The group is read again from the body, where
 * every message the service sends names its tenant (`messageGroupOf` makes the group of it).
 *
 * fauxqs exports no hook for it, so its queue class is reached by its file (the same module
 * the emulator runs, so the change applies to its queues).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { identifiersOf, messageGroupOf } from '#shared/queue/webhook-queue.ts';

interface QueuedMessage {
  messageGroupId?: string;
  body?: string;
}

interface EmulatedQueue {
  messages: QueuedMessage[];
  inflightMessages: Map<string, { message: QueuedMessage }>;
  isFifo(): boolean;
  dequeue(...args: unknown[]): unknown;
}

/** The group SQS would have kept: the message's own, else the tenant its body names (every message the service sends names one). */
const groupOf = (message: QueuedMessage): string | undefined => {
  if (message.messageGroupId) return message.messageGroupId;
  const { tenant } = identifiersOf(message.body ?? '');
  return typeof tenant === 'string' && tenant !== '' ? messageGroupOf(tenant) : undefined;
};

/** The messages in fair order: fewest of their group in flight first, arrival order within a group. */
export function fairOrder<M extends QueuedMessage>(messages: readonly M[], inFlight: Iterable<QueuedMessage>): M[] {
  const busy = new Map<string, number>();
  for (const message of inFlight) {
    const group = groupOf(message);
    if (group) busy.set(group, (busy.get(group) ?? 0) + 1);
  }
  if (busy.size === 0) return [...messages];
  const load = (m: M) => busy.get(groupOf(m) ?? '') ?? 0;
  // Array.prototype.sort is stable: equal loads keep their arrival order.
  return [...messages].sort((a, b) => load(a) - load(b));
}

let taught = false;

export async function teachFairQueues(): Promise<void> {
  if (taught) return;
  // Where Node finds the package (its exports map allows no deeper path to be resolved).
  const modules = (createRequire(import.meta.url).resolve.paths('fauxqs') ?? []).find((dir) => existsSync(join(dir, 'fauxqs', 'package.json')));
  if (!modules) throw new Error('fauxqs is not installed');
  const store = join(modules, 'fauxqs', 'dist', 'sqs', 'sqsStore.js');
  const { SqsQueue } = (await import(pathToFileURL(store).href)) as { SqsQueue: { prototype: EmulatedQueue } };
  const dequeue = SqsQueue.prototype.dequeue;
  SqsQueue.prototype.dequeue = function (this: EmulatedQueue, ...args: unknown[]) {
    if (!this.isFifo() && this.messages.length > 1) {
      this.messages = fairOrder(
        this.messages,
        [...this.inflightMessages.values()].map((entry) => entry.message),
      );
    }
    return dequeue.apply(this, args);
  };
  taught = true;
}
