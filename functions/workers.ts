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

/**
 * The functions of live calls on Amazon Connect, deployed only with `-c callPlatform=connect`:
 * the dialog the contact flow invokes turn by turn, and the worker of Connect's contact events.
 */
export const LIVE_CALL_FUNCTIONS = {
  dialog: {
    name: 'call-dialog',
    handler: 'functions/live-calls/dialog.ts',
    description: 'Answers each turn of the contact flow: what the customer hears and which keys they may press',
  },
  contactEvents: {
    name: 'contact-events',
    handler: 'functions/live-calls/contact-events.ts',
    description: "Records each call attempt from Amazon Connect's contact events",
  },
} as const;
