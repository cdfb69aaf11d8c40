/**
 * The background functions: not routes, but deployed by the CDK app and run by the local
 * runtime from this one list.
 */
export interface Worker {
  readonly name: string;
  readonly handler: string;
  readonly trigger: 'table-stream' | 'webhook-queue' | 'schedule';
  readonly description: string;
}

export const WORKERS = {
  streamProcessor: {
    name: 'stream-processor',
    handler: 'functions/workers/stream-processor.ts',
    trigger: 'table-stream',
    description: 'Turns outbox event records into webhook deliveries and domain reactions',
  },
  catalogIndexer: {
    name: 'catalog-indexer',
    handler: 'functions/workers/catalog-indexer.ts',
    trigger: 'table-stream',
    description: 'Keeps the variant index current from the table stream',
  },
  webhookSender: {
    name: 'webhook-sender',
    handler: 'functions/workers/webhook-sender.ts',
    trigger: 'webhook-queue',
    description: 'Delivers signed webhooks with retries and dead-lettering',
  },
  callScheduler: {
    name: 'call-scheduler',
    handler: 'functions/workers/call-scheduler.ts',
    trigger: 'schedule',
    description: 'Starts the call attempts whose contact time has come',
  },
  reconciler: {
    name: 'reconciler',
    handler: 'functions/workers/reconciler.ts',
    trigger: 'schedule',
    description: 'Re-enqueues records whose queue message is overdue',
  },
} as const satisfies Record<string, Worker>;
