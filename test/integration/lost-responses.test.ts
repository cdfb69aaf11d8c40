/**
 * Every conditional write survives a lost response. Each scenario runs the real store code
 * against DynamoDB Local twice: once as it is, once with every conditional write's first
 * attempt answered by a dropped connection after DynamoDB applied it (deterministically, not at
 * random), so the SDK sends it again and the retry meets the item its own first attempt wrote.
 * The outcome must be the same. The last test finds every conditional write in the code and
 * fails if one was not reached here, or was written around the one helper that makes it safe.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { droppedConnection } from '#local/faults.ts';
import { dueAttributes } from '#shared/queue/outbox-queue.ts';
import { decorateClients, dynamoClient, tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { withQueueMissing } from '../support/deliveries.ts';
import { repoRoot } from '../support/paths.ts';

/** Where each conditional write was made from (file:line), and how many first attempts were lost. */
const sites = new Set<string>();
let losing = false;
let lost = 0;
/** Another writer's write, landing after a lost first attempt and before its retry (once). */
let beforeRetry: (() => Promise<unknown>) | undefined;

const CONDITIONAL = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand']);
const isConditional = (command: string, input: Record<string, unknown>) =>
  CONDITIONAL.has(command) &&
  (typeof input.ConditionExpression === 'string' ||
    ((input.TransactItems as Record<string, { ConditionExpression?: string }>[] | undefined) ?? []).some((item) =>
      Object.values(item).some((action) => typeof action.ConditionExpression === 'string'),
    ));

/** The first frame of the store code that made the call (not the SDK, not the helper). */
const callerOf = (stack: string) =>
  stack
    .split('\n')
    .map((line) => /\((.*?):(\d+):\d+\)$|at (.*?):(\d+):\d+$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ file: relative(repoRoot, m[1] ?? m[3]!), line: Number(m[2] ?? m[4]) }))
    .find(({ file }) => /^(shared|functions|local)\//.test(file) && file !== 'shared/storage/conditional.ts' && file !== 'shared/storage/clients.ts');

decorateClients((service, client) => {
  if (service !== 'dynamodb') return;
  const stack = (client as DynamoDBClient).middlewareStack;
  stack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      if (!isConditional(context.commandName!, input)) return next(args);
      const caller = callerOf(new Error().stack ?? '');
      if (caller) sites.add(`${caller.file}:${caller.line}`);
      (context as { loseFirst?: boolean }).loseFirst = losing;
      return next(args);
    },
    { step: 'initialize', name: 'lostResponsesSite', priority: 'high' },
  );
  // Inside the retry loop, like the local fault switch: DynamoDB acts, the answer never arrives.
  stack.add(
    (next, context) => async (args) => {
      const state = context as { loseFirst?: boolean };
      if (!state.loseFirst) return next(args);
      state.loseFirst = false;
      await next(args).catch(() => undefined);
      lost++;
      const interleaved = beforeRetry;
      beforeRetry = undefined;
      await interleaved?.();
      throw droppedConnection();
    },
    { step: 'deserialize', name: 'lostResponses', override: true },
  );
});

/**
 * Each lost answer costs the SDK's retry quota 10 of its 500 tokens, and when the retry meets
 * the write's own result the call ends in an error (recognised by our helper), so they never
 * come back; a function instance refills one per successful call, and this file makes almost
 * none. Every lossy run starts with the quota a fresh instance has, so the scenarios do not
 * depend on how many ran before them.
 */
async function freshRetryQuota(): Promise<void> {
  const strategy = (await (dynamoClient().config.retryStrategy as unknown as () => Promise<{ capacity: number }>)()) ?? {};
  if (typeof strategy.capacity !== 'number') throw new Error('the SDK retry strategy no longer keeps its quota in `capacity`');
  strategy.capacity = 500;
}

/** Runs the scenario as it is and with every first answer lost; both outcomes are returned for comparison. */
async function bothWays<T>(scenario: () => Promise<T>): Promise<{ clean: T; lossy: T }> {
  const clean = await scenario();
  const lostBefore = lost;
  await freshRetryQuota();
  losing = true;
  try {
    const lossy = await scenario();
    expect(lost, 'the lossy run lost no answer: the scenario made no conditional write').toBeGreaterThan(lostBefore);
    return { clean, lossy };
  } finally {
    losing = false;
  }
}

const tenantId = () => `t-${randomUUID().slice(0, 12)}`;
const get = async ({ pk, sk }: { pk: string; sk: string }) =>
  (await tableClient().send(new GetCommand({ TableName: tableName(), Key: { pk, sk }, ConsistentRead: true }))).Item;
const put = (item: Record<string, unknown>) => tableClient().send(new PutCommand({ TableName: tableName(), Item: item }));
const update = ({ pk, sk }: { pk: string; sk: string }, expression: string, values: Record<string, unknown>) =>
  tableClient().send(new UpdateCommand({ TableName: tableName(), Key: { pk, sk }, UpdateExpression: expression, ExpressionAttributeValues: values }));
const principal = (tenant: string) => ({ tenant, keyId: 'key_lost_responses', scopes: [] }) as never;

describe('a conditional write whose answer was lost', () => {
  afterAll(() => expect(lost).toBeGreaterThan(0));

  it('API keys: a created key is created (not an error), a revoked key revoked', async () => {
    const { createApiKey, revokeApiKey, readApiKey } = await import('#shared/auth/api-keys.ts');
    const { clean, lossy } = await bothWays(async () => {
      const key = await createApiKey(tenantId(), ['orders:read']);
      const stored = await readApiKey(key.key_id);
      const revoked = await revokeApiKey(key.key_id);
      return { status: stored?.status, revoked, after: (await readApiKey(key.key_id))?.status };
    });
    expect(clean).toEqual({ status: 'active', revoked: true, after: 'revoked' });
    expect(lossy).toEqual(clean);
  });

  it('requests: a nonce is claimed once (not a replay), a rate window counts the request once', async () => {
    const { dynamoAuthPorts, takeRateToken } = await import('#shared/auth/dynamodb-adapters.ts');
    const { keySecrets } = await import('#shared/auth/key-secret-deriver.ts');
    const ports = dynamoAuthPorts({ secrets: keySecrets(), cacheSeconds: 0 });
    const { clean, lossy } = await bothWays(async () => {
      const p = { tenant: tenantId(), keyId: 'key_x', scopes: [] } as never;
      const now = new Date();
      const claimed = await ports.claimNonce(p, randomUUID(), new Date(now.getTime() + 60_000), now);
      const limit = { requests_per_second: 1, burst: 2 };
      const waits = [await takeRateToken(p, limit, now), await takeRateToken(p, limit, now), await takeRateToken(p, limit, now)];
      return { claimed, admitted: waits.map((w) => w === 0) };
    });
    expect(clean).toEqual({ claimed: true, admitted: [true, true, false] });
    expect(lossy).toEqual(clean);
  });

  it('idempotency: a request whose claim was stored runs (not "already in progress")', async () => {
    const { tableIdempotencyStore } = await import('#shared/http/middleware/idempotency.ts');
    const { clean, lossy } = await bothWays(async () => {
      const store = tableIdempotencyStore(tableName(), dynamoClient())(tenantId());
      store.configure({ config: new IdempotencyConfig({ eventKeyJmesPath: 'key', payloadValidationJmesPath: 'body' }), functionName: 'createOrder' });
      const request = { key: randomUUID(), body: 'b' };
      await store.saveInProgress(request, 10_000);
      return (await store.getRecord(request)).getStatus();
    });
    expect(clean).toBe('INPROGRESS');
    expect(lossy).toEqual(clean);
  });

  it('versioned upserts and erasure: a new customer is upserted (not unchanged), an erasure answers its time', async () => {
    const { upsertCustomer, anonymizeCustomer, readCustomer } = await import('#shared/customers/customer-store.ts');
    const { CustomerInputSchema } = await import('#shared/customers/customer-schemas.ts');
    const { customerBody } = await import('../support/orders.ts');
    const { clean, lossy } = await bothWays(async () => {
      const tenant = tenantId();
      const now = new Date();
      const first = await upsertCustomer(tenant, 'c-1', CustomerInputSchema.parse(customerBody('+4915112345670')), now);
      const again = await upsertCustomer(tenant, 'c-1', CustomerInputSchema.parse(customerBody('+4915112345670')), now);
      const erasedAt = await anonymizeCustomer(tenant, 'c-1', principal(tenant), 'req-1', now);
      const stored = await readCustomer(tenant, 'c-1', true);
      return { first, again, erased: erasedAt === now.toISOString(), phone: stored?.phone ?? null };
    });
    expect(clean).toEqual({ first: 'upserted', again: 'unchanged', erased: true, phone: null });
    expect(lossy).toEqual(clean);
  });

  it('catalog batches: a new product and a new version are upserted (not unchanged or stale), a product sent again unchanged', async () => {
    const { upsertProductBatch } = await import('#shared/catalog/product-store.ts');
    const product = (version: string) => ({
      external_product_id: 'p-1',
      title: `Coffee ${version}`,
      source_version: version,
      variants: [{ external_variant_id: 'beans', price: '9.99', currency: 'EUR' }],
    });
    const { clean, lossy } = await bothWays(async () => {
      const tenant = tenantId();
      const now = new Date();
      const outcomes = [];
      for (const version of ['1', '2', '2']) outcomes.push((await upsertProductBatch(tenant, [product(version)], now))[0]?.outcome);
      return outcomes;
    });
    expect(clean).toEqual(['upserted', 'upserted', 'unchanged']);
    expect(lossy).toEqual(clean);
  });

  it('archiving: an archived item comes back archived', async () => {
    const { archiveItem } = await import('#shared/storage/tombstone.ts');
    const { clean, lossy } = await bothWays(async () => {
      const key = { pk: `T#${tenantId()}#RULE#r-1`, sk: 'RULE' };
      await put({ ...key, status: 'active', list_view: { status: 'active' } });
      const archived = await archiveItem<{ status: string }>(key, new Date(), { set: {}, remove: [] });
      return archived?.status;
    });
    expect(clean).toBe('archived');
    expect(lossy).toEqual(clean);
  });

  it('orders: a submitted order is created (not "updated" or a conflict), with one status event; a result forgets its scenario', async () => {
    const { orderCommands } = await import('#shared/orders/order-commands.ts');
    const { OrderInputSchema } = await import('#shared/orders/order-schemas.ts');
    const { dynamoOrderRepository, forgetResultScenario } = await import('#shared/orders/order-store.ts');
    const { orderHistory } = await import('#shared/orders/order-records.ts');
    const { keys } = await import('#shared/storage/keys.ts');
    const { orderBody } = await import('../support/orders.ts');
    const requalify = async () => ({ to: 'validated' as const, reason: null, substitutions: [] });
    const commands = orderCommands({ orders: dynamoOrderRepository, callPlatform: { cancel: async () => undefined }, requalify });
    const { clean, lossy } = await bothWays(async () => {
      const tenant = tenantId();
      const request = { now: new Date(), requestId: randomUUID() };
      // The shared stack processes the order from here on (this tenant has no configuration: it is
      // rejected); what is compared is the submission's own answer and write.
      const submitted = await commands.submit(tenant, OrderInputSchema.parse(orderBody('o-1', 'c-1')), request);
      const history = await orderHistory(submitted.order.pk);
      await put({ ...keys.orderResult(submitted.order.pk), scenario: 'confirmed' });
      await forgetResultScenario(submitted.order.pk);
      return {
        outcome: submitted.outcome,
        state: submitted.order.processing_state,
        first: history.entries[0]?.to,
        scenario: (await get(keys.orderResult(submitted.order.pk)))?.scenario ?? null,
      };
    });
    expect(clean).toEqual({ outcome: 'created', state: 'received', first: 'received', scenario: null });
    expect(lossy).toEqual(clean);
  });

  it('orders: a change that writes the order alone lands once (not a revision conflict)', async () => {
    const { orderItem, readOrder, writeOrder } = await import('#shared/orders/order-store.ts');
    const { order } = await import('../unit/orders/memory-ports.ts');
    const { clean, lossy } = await bothWays(async () => {
      const tenant = tenantId();
      // A completed order: the shared stack has nothing left to do with it while the scenario writes.
      const stored = { ...order('o-1'), tenant, pk: keys.order(tenant, 'o-1').pk, processing_state: 'completed' as const, revision: 1 };
      await put(orderItem(stored, new Date()));
      const written = await writeOrder(stored, { set: { priority: 7 } }, new Date());
      const read = await readOrder(tenant, 'o-1', true);
      return { revision: written.revision, stored: read && { revision: read.revision, priority: read.priority, state: read.processing_state } };
    });
    expect(clean).toEqual({ revision: 2, stored: { revision: 2, priority: 7, state: 'completed' } });
    expect(lossy).toEqual(clean);
  });

  it('orders: a finished call is recorded once, its attempt written ahead of the order and its result with it', async () => {
    const { orderItem, readOrder, writeOrder } = await import('#shared/orders/order-store.ts');
    const { readOrderRecords } = await import('#shared/orders/order-records.ts');
    const { order } = await import('../unit/orders/memory-ports.ts');
    const { clean, lossy } = await bothWays(async () => {
      const tenant = tenantId();
      const pk = keys.order(tenant, 'o-1').pk;
      // In a call the shared stack's own scheduler does not take up (its deadline is far off).
      const stored = { ...order('o-1'), tenant, pk, processing_state: 'in_call' as const, call_attempts: 1, call_deadline_at: '2099-01-01T00:00:00.000Z' };
      await put(orderItem(stored, new Date()));
      const attempt = {
        ...keys.orderAttempt(pk, 1),
        entity: 'call_attempt',
        attempt: 1,
        call_disposition: 'answered',
        started_at: '2026-11-25T11:00:00Z',
        ended_at: '2026-11-25T11:01:00Z',
      };
      const result = { ...keys.orderResult(pk), entity: 'result', tenant, external_order_id: 'o-1', business_outcome: 'confirmed' };
      const written = await writeOrder(stored, { to: 'completed', reason: 'confirmed', calls: { attempt, result, causeRevision: 1 } }, new Date());
      const read = await readOrder(tenant, 'o-1', true);
      const records = await readOrderRecords(pk, { history: { after: 0, through: written.revision } });
      return {
        revision: written.revision,
        state: read?.processing_state,
        logged: read?.log.map((e) => e.split('|')[1]),
        attempts: [...records.attempts.keys()],
        result: records.result?.business_outcome,
      };
    });
    expect(clean).toEqual({ revision: 2, state: 'completed', logged: ['r', 'c', 'A', 'R'], attempts: [1], result: 'confirmed' });
    expect(lossy).toEqual(clean);
  });

  it('paged jobs, events and stream work: a page advances its job once, an event is put once, stream work is marked done', async () => {
    const { jobItem, advanceJob } = await import('#shared/jobs/reaction-jobs.ts');
    const { putEventOnce } = await import('#shared/events/event-store.ts');
    const { streamWorkDone } = await import('#shared/stream/stream-work.ts');
    const { clean, lossy } = await bothWays(async () => {
      const tenant = tenantId();
      const now = new Date();
      const job = jobItem('scrub-customer-orders', tenant, 'c-1', now);
      await put(job);
      await advanceJob(job, null, { orders: 3, ms: 5 }, now);
      const event = { pk: `T#${tenant}#ORDER#o-1`, sk: `EVENT#${randomUUID()}`, entity: 'event', occurred_at: now.toISOString() } as never;
      await putEventOnce(event);
      const stored = (await get(event))!;
      await streamWorkDone('stream-processor').handle({ eventName: 'INSERT', newImage: stored } as never);
      const doneJob = (await get(job))!;
      return { job: [doneJob.status, doneJob.pages], event: stored.entity, due: (await get(event))!.gsi2pk ?? null };
    });
    expect(clean).toEqual({ job: ['done', 1], event: 'event', due: null });
    expect(lossy).toEqual(clean);
  });

  it("orders' publication marker: once its events are out, an order scheduled for later keeps its call's due entry, a final one none, each its watermark", async () => {
    const { afterPublication, orderItem } = await import('#shared/orders/order-store.ts');
    const { streamWorkDone } = await import('#shared/stream/stream-work.ts');
    const { dueKey } = await import('#shared/storage/due-index.ts');
    const { order } = await import('../unit/orders/memory-ports.ts');
    const { clean, lossy } = await bothWays(async () => {
      const tenant = tenantId();
      const later = new Date(Date.now() + 30 * 86_400_000).toISOString();
      const base = { ...order('o-1'), tenant, pk: keys.order(tenant, 'o-1').pk, revision: 1 };
      type Item = Record<string, unknown> & { pk: string; sk: string };
      const scheduled = orderItem({ ...base, processing_state: 'scheduled' as const, next_contact_at: later }, new Date()) as unknown as Item;
      const completed = orderItem(
        { ...base, pk: keys.order(tenant, 'o-2').pk, external_order_id: 'o-2', processing_state: 'completed' as const },
        new Date(),
      ) as unknown as Item;
      const marked = [scheduled, completed].map((item) => String(item.gsi2pk).split('#')[0]);
      for (const item of [scheduled, completed]) {
        await put(item);
        await streamWorkDone('stream-processor', { order: afterPublication }).handle({ eventName: 'INSERT', newImage: item } as never);
      }
      const [s, c] = [(await get(scheduled))!, (await get(completed))!];
      // A later write left no marker before the work was noted done: only the watermark is raised.
      const overtaken = orderItem(
        { ...base, pk: keys.order(tenant, 'o-3').pk, external_order_id: 'o-3', processing_state: 'completed' as const, revision: 5 },
        new Date(),
      ) as unknown as Item;
      const { gsi2pk: _marker, gsi2sk: _due, ...unmarked } = overtaken;
      await put(unmarked);
      await streamWorkDone('stream-processor', { order: afterPublication }).handle({ eventName: 'INSERT', newImage: overtaken } as never);
      const o = (await get(overtaken))!;
      return {
        marked,
        scheduled: [String(s.gsi2pk).split('#')[0], dueKey(String(s.gsi2sk)).due === later, s.published],
        completed: [c.gsi2pk ?? null, c.published],
        overtaken: [o.gsi2pk ?? null, o.published],
      };
    });
    expect(clean).toEqual({
      marked: ['STREAMDUE', 'STREAMDUE'],
      scheduled: ['ORDERDUE', true, 1],
      completed: [null, 1],
      overtaken: [null, 5],
    });
    expect(lossy).toEqual(clean);
  });

  it('write-back: an attempt is claimed once and settled once, the due entry gone', async () => {
    const { claimWriteBackAttempt, settleWriteBack } = await import('#shared/writeback/writeback-state.ts');
    const { clean, lossy } = await bothWays(async () => {
      const result = { pk: `T#${tenantId()}#ORDER#o-1`, sk: 'RESULT', entity: 'result' };
      // The due entry comes by an update, an hour ahead: the shared runtime's stream processor
      // and sweep take a result inserted with one that is due, and this test drives the write-back itself.
      await put(result);
      await update(result, 'SET gsi2pk = :due, gsi2sk = :at', { ':due': 'STREAMDUE#1', ':at': new Date(Date.now() + 3_600_000).toISOString() });
      const claimed = await claimWriteBackAttempt(result, new Date());
      const again = await claimWriteBackAttempt(result, new Date());
      const settled = await settleWriteBack(result, 'written');
      const stored = (await get(result))!;
      return { claimed, again, settled, attempts: stored.writeback_attempts, state: stored.writeback_state, due: stored.gsi2pk ?? null };
    });
    expect(clean).toEqual({ claimed: true, again: false, settled: true, attempts: 1, state: 'written', due: null });
    expect(lossy).toEqual(clean);
  });

  it('due entries: a sweep that moved a due time on owns the work (not "someone else took it"), and one that takes it gets the whole item', async () => {
    const { postponeDue, takeDue } = await import('#shared/storage/due-index.ts');
    const { clean, lossy } = await bothWays(async () => {
      const item = { pk: `T#${tenantId()}#ORDER#o-1`, sk: 'ORDER', gsi2pk: 'DUE#x', gsi2sk: new Date().toISOString() };
      await put(item);
      const postponed = await postponeDue(item, new Date(Date.now() + 60_000));
      // As the index shows it: the keys and the due time, not the variants.
      const product = { pk: `T#${tenantId()}#PRODUCT#p-1`, sk: 'PRODUCT', gsi2pk: 'STREAMDUE#x', gsi2sk: new Date().toISOString(), variants: ['v1', 'v2'] };
      await put(product);
      const next = new Date(Date.now() + 60_000);
      const taken = await takeDue({ pk: product.pk, sk: product.sk, gsi2sk: product.gsi2sk }, next);
      return { postponed, taken: taken && { variants: taken.variants, dueAt: taken.gsi2sk === next.toISOString() } };
    });
    expect(clean).toEqual({ postponed: true, taken: { variants: ['v1', 'v2'], dueAt: true } });
    expect(lossy).toEqual(clean);
  });

  it('deliveries: enqueued once, claimed by its sender (not "held"), its attempt recorded (not "superseded")', async () => {
    const { enqueueDelivery, claimDelivery, deferDelivery, markRecovered, recordDeliveryAttempt } = await import('#shared/webhooks/delivery-store.ts');
    const { clean, lossy } = await bothWays(async () => {
      const tenant = tenantId();
      const id = `dlv_${randomUUID()}`;
      const event = {
        event_id: `evt_${randomUUID()}`,
        event_type: 'commerce.order.status_changed.v1',
        external_order_id: 'o-1',
        event_occurred_at: null,
        correlation_id: null,
      };
      // Parked: the shared stack's own sender has no message to claim it with.
      const enqueued = await enqueueDelivery(tenant, id, event as never, '{}', null, new Date(), { parked: true });
      const claim = await claimDelivery(tenant, id, new Date(), 60, true);
      if (claim.kind !== 'claimed') return { enqueued, claim: claim.kind };
      const outcome = { at: new Date(), statusCode: 200, error: null, latencyMs: 5, requestExcerpt: '', responseExcerpt: '' };
      const recorded = await recordDeliveryAttempt(claim.delivery, outcome, claim.lease);
      // A delivery held for a paused endpoint: the reconciler's look at it moves on, never back.
      const held = `dlv_${randomUUID()}`;
      await enqueueDelivery(tenant, held, event as never, '{}', null, new Date(), { parked: true });
      const due = dueAttributes(keys.delivery(tenant, held).pk, new Date(Date.now() + 3_600_000), { body: JSON.stringify({ tenant, delivery_id: held }) });
      const setDue = 'SET gsi2pk = :pk, gsi2sk = :sk, queue_message = :m';
      const dueValues = { ':pk': due.gsi2pk, ':sk': due.gsi2sk, ':m': due.queue_message };
      await tableClient().send(
        new UpdateCommand({ TableName: tableName(), Key: keys.delivery(tenant, held), UpdateExpression: setDue, ExpressionAttributeValues: dueValues }),
      );
      const deferred = [await deferDelivery(tenant, held, new Date(Date.now() + 2 * 3_600_000)), await deferDelivery(tenant, held, new Date())];
      // Nothing left for the shared stack's reconciler: a parked delivery has no due entry.
      await tableClient().send(
        new UpdateCommand({ TableName: tableName(), Key: keys.delivery(tenant, held), UpdateExpression: 'REMOVE gsi2pk, gsi2sk, queue_message' }),
      );
      // A stream record's delivery whose message could not be sent: its due entry armed for the reconciler.
      const unsent = `dlv_${randomUUID()}`;
      await withQueueMissing(() => enqueueDelivery(tenant, unsent, event as never, '{}', null, new Date(), { fromStream: true }));
      const armed =
        (await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.delivery(tenant, unsent), ConsistentRead: true }))).Item?.gsi2pk !==
        undefined;
      // Nothing for the shared stack's reconciler to send to a tenant without a subscription.
      await tableClient().send(
        new UpdateCommand({ TableName: tableName(), Key: keys.delivery(tenant, unsent), UpdateExpression: 'REMOVE gsi2pk, gsi2sk, queue_message' }),
      );
      // A dead-lettered delivery recovered once: the second note finds it recovered already.
      const dead = `dlv_${randomUUID()}`;
      await enqueueDelivery(tenant, dead, event as never, '{}', null, new Date(), { parked: true });
      const recovered = [await markRecovered(tenant, dead, 'dlv_replay'), await markRecovered(tenant, dead, 'dlv_other')];
      return { enqueued, claim: claim.kind, recorded: recorded.status, attempts: claim.delivery.attempts, deferred, armed, recovered };
    });
    expect(clean).toEqual({
      enqueued: true,
      claim: 'claimed',
      recorded: 'delivered',
      attempts: 0,
      deferred: [true, false],
      armed: true,
      recovered: [true, false],
    });
    expect(lossy).toEqual(clean);
  });

  it('webhook subscriptions: created (its secret shown), rotated, failing, recovered and disabled as without the loss', async () => {
    const { putSubscription, rotateSecret, noteEndpointAttempt, readWebhookSubscription } = await import('#shared/webhooks/subscription-store.ts');
    const { clean, lossy } = await bothWays(async () => {
      const tenant = tenantId();
      const now = new Date();
      const input = { url: 'https://hooks.example.com/w', event_types: ['commerce.order.status_changed.v1'] as never, enabled: true };
      const created = await putSubscription(tenant, input, now);
      const rotated = await rotateSecret(tenant, 0, now);
      const afterRotation = (await readWebhookSubscription(tenant))!;
      const failing = await noteEndpointAttempt(tenant, afterRotation, false, now, 3600);
      const recovered = await noteEndpointAttempt(tenant, (await readWebhookSubscription(tenant))!, true, now, 3600);
      await noteEndpointAttempt(tenant, (await readWebhookSubscription(tenant))!, false, new Date(now.getTime() - 7200_000), 3600);
      const disabled = await noteEndpointAttempt(tenant, (await readWebhookSubscription(tenant))!, false, now, 3600);
      const enabledAfterDisabling = (await readWebhookSubscription(tenant))!.enabled;
      // Enabled again by the partner: a changed endpoint, so it starts afresh (not "the same endpoint, still disabled").
      const reEnabled = await putSubscription(tenant, input, now);
      return {
        created: created.created,
        rotatedIsStored: rotated.secret === afterRotation.secret,
        failing,
        recovered,
        disabled,
        enabled: enabledAfterDisabling,
        reEnabled: { enabled: reEnabled.subscription.enabled, failingSince: reEnabled.subscription.failing_since ?? null },
      };
    });
    expect(clean).toEqual({
      created: true,
      rotatedIsStored: true,
      failing: 'failing',
      recovered: 'recovered',
      disabled: 'disabled',
      enabled: false,
      reEnabled: { enabled: true, failingSince: null },
    });
    expect(lossy).toEqual(clean);
  });

  it('webhook endpoints: a slot is claimed once and given back once; five failures open the breaker, a probe’s success closes it, as without the loss', async () => {
    const { putSubscription, readWebhookSubscription } = await import('#shared/webhooks/subscription-store.ts');
    const { BREAKER_THRESHOLD, claimSlot, ENDPOINT_SLOTS, leaseElement, releaseSlot, settleSlot } = await import('#shared/webhooks/endpoint-guard.ts');
    const { clean, lossy } = await bothWays(async () => {
      const tenant = tenantId();
      const now = new Date();
      const input = { url: 'https://hooks.example.com/w', event_types: ['commerce.order.status_changed.v1'] as never, enabled: true };
      await putSubscription(tenant, input, now);
      const read = async () => (await readWebhookSubscription(tenant))!;
      const unused = await claimSlot(tenant, await read(), now, 30);
      // An attempt whose lease ran out settles without taking the slot from its new holder.
      const overrun = unused.kind === 'slot' && (await settleSlot(tenant, await read(), { lease: leaseElement(now) }, true, now));
      const keptForHolder = unused.kind === 'slot' && ((await read()).leases?.has(unused.lease) ?? false);
      const released = unused.kind === 'slot' && (await releaseSlot(tenant, unused));
      // Four failures counted already (each failure's write is the same as the fifth's).
      await tableClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookSubscription(tenant),
          UpdateExpression: 'SET failed_attempts = :four',
          ExpressionAttributeValues: { ':four': new Set(Array.from({ length: BREAKER_THRESHOLD - 1 }, (_, i) => `earlier-${i}`)) },
        }),
      );
      const before = await read();
      const fifth = await claimSlot(tenant, before, now, 30);
      if (fifth.kind !== 'slot') throw new Error('no slot');
      const states = [await settleSlot(tenant, before, fifth, false, now)];
      const opened = await read();
      const whileOpen = (await claimSlot(tenant, opened, now, 30)).kind;
      const later = new Date(Date.parse(opened.paused_until!) + 1000);
      const probe = await claimSlot(tenant, opened, later, 30);
      if (probe.kind !== 'slot') throw new Error('no probe');
      const closed = await settleSlot(tenant, opened, probe, true, later);
      const after = await read();
      const slotsLeft = after.leases?.size ?? 0;
      // Every slot held by an attempt that died: a claim frees them and takes one.
      const dead = new Set(Array.from({ length: ENDPOINT_SLOTS }, () => leaseElement(new Date(later.getTime() - 60_000))));
      await tableClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookSubscription(tenant),
          UpdateExpression: 'ADD leases :dead',
          ExpressionAttributeValues: { ':dead': dead },
        }),
      );
      const overDead = (await claimSlot(tenant, await read(), later, 30)).kind;
      const leasesAfterDead = (await read()).leases?.size ?? 0;
      return {
        overrun,
        keptForHolder,
        released,
        states,
        failuresLeft: opened.failed_attempts?.size ?? 0,
        whileOpen,
        closed,
        slotsLeft,
        paused: after.paused_until ?? null,
        overDead,
        leasesAfterDead,
      };
    });
    expect(clean).toEqual({
      overrun: 'closed',
      keptForHolder: true,
      released: true,
      states: ['open'],
      failuresLeft: 0,
      whileOpen: 'wait',
      closed: 'closed',
      slotsLeft: 0,
      paused: null,
      overDead: 'slot',
      leasesAfterDead: 1,
    });
    expect(lossy).toEqual(clean);
  });

  it('webhook endpoints: a failure whose write is retried after another attempt’s failure landed is counted once', async () => {
    const { putSubscription, readWebhookSubscription } = await import('#shared/webhooks/subscription-store.ts');
    const { settleSlot } = await import('#shared/webhooks/endpoint-guard.ts');
    const tenant = tenantId();
    const now = new Date();
    await putSubscription(tenant, { url: 'https://hooks.example.com/w', event_types: ['commerce.order.status_changed.v1'] as never, enabled: true }, now);
    const lostBefore = lost;
    await freshRetryQuota();
    beforeRetry = () => {
      losing = false;
      return settleSlot(tenant, {}, undefined, false, now);
    };
    losing = true;
    try {
      await settleSlot(tenant, {}, undefined, false, now);
    } finally {
      losing = false;
    }
    expect(lost).toBe(lostBefore + 1);
    expect(beforeRetry).toBeUndefined();
    // Two failed attempts: the retried write found the other attempt's write, not its own, and applied again.
    expect((await readWebhookSubscription(tenant))?.failed_attempts?.size).toBe(2);
  });

  it('listen sessions: a session claims its slot once (not "the cap is reached"), and a read renews it (not "ended")', async () => {
    const { createListenSession, readListenFeed } = await import('#shared/webhooks/listen-sessions.ts');
    const { clean, lossy } = await bothWays(async () => {
      const tenant = tenantId();
      const now = new Date();
      const sessions = [];
      for (let i = 0; i < 5; i++) sessions.push(await createListenSession(tenant, ['commerce.order.status_changed.v1'], now));
      const read = await readListenFeed(tenant, sessions[0]!.listen_session_id, undefined, now);
      return { created: sessions.length, ids: new Set(sessions.map((x) => x.listen_session_id)).size, read: read.data };
    });
    expect(clean).toEqual({ created: 5, ids: 5, read: [] });
    expect(lossy).toEqual(clean);
  });

  it("live calls: an attempt's one stop is claimed once, the order heard is kept, the customer's first choice stands", async () => {
    const { dynamoContactMap } = await import('#shared/calls/connect/contact-store.ts');
    const { clean, lossy } = await bothWays(async () => {
      const key = { tenant: tenantId(), external_order_id: 'o-1', attempt: 1 };
      const attempt = { ...key, reference: randomUUID(), external_customer_id: 'c-1' };
      await dynamoContactMap.prepare(attempt);
      await dynamoContactMap.placed({ ...attempt, contactId: randomUUID() });
      const claims = [await dynamoContactMap.claimStop(key), await dynamoContactMap.claimStop(key)];
      await dynamoContactMap.hear(attempt.reference);
      await dynamoContactMap.hear(attempt.reference);
      await dynamoContactMap.decide(attempt.reference, 'declined');
      await dynamoContactMap.decide(attempt.reference, 'confirmed');
      const kept = await dynamoContactMap.byReference(attempt.reference);
      return { claims, heard: kept?.heard, decision: kept?.decision };
    });
    expect(clean).toEqual({ claims: [true, false], heard: true, decision: 'declined' });
    expect(lossy).toEqual(clean);
  });

  it('the dial rate: a second lets through at most its rate, a lost answer never lets one more through', async () => {
    const { dynamoDialRate } = await import('#shared/calls/dial-rate.ts');
    const { clean, lossy } = await bothWays(async () => {
      // A second of its own, far from any other test's dials.
      const second = new Date(Date.UTC(2000, 0, 1) + Math.floor(Math.random() * 1e9) * 1000);
      const claims = [];
      const rate = dynamoDialRate(2);
      for (let i = 0; i < 3; i++) claims.push(await rate(second, 't-1'));
      return claims.filter((claim) => claim === 'placed').length;
    });
    expect(clean).toBe(2);
    // A retried claim whose first answer was lost may count twice: never more dials, at worst one fewer.
    expect(lossy).toBeGreaterThanOrEqual(1);
    expect(lossy).toBeLessThanOrEqual(2);
  });

  it('live calls in flight: a place is taken once and given back once, and the cap holds', async () => {
    const { dynamoCallSlots } = await import('#shared/calls/call-slots.ts');
    const { clean, lossy } = await bothWays(async () => {
      // The only calls in flight of this table (the shared stack places no live calls).
      const slots = dynamoCallSlots(2, 600);
      const attempt = (n: number) => ({ tenant: 't-slots', external_order_id: `o-${n}`, attempt: 1 });
      const now = new Date();
      const claims = [];
      for (const n of [1, 2, 3]) claims.push(await slots.claim(attempt(n), now));
      for (const n of [1, 2]) await slots.release(attempt(n));
      claims.push(await slots.claim(attempt(3), new Date()));
      await slots.release(attempt(3));
      return claims;
    });
    expect(clean).toEqual(['claimed', 'claimed', 'calls_full', 'claimed']);
    expect(lossy).toEqual(clean);
  });

  it('system secrets: the cursor key is created once and read back as written', async () => {
    const { systemSecret } = await import('#shared/storage/pagination.ts');
    const { clean, lossy } = await bothWays(async () => {
      const name = `TEST_SECRET#${randomUUID()}`;
      const made = await systemSecret(name);
      return made.equals(await systemSecret(name));
    });
    expect(clean).toBe(true);
    expect(lossy).toEqual(clean);
  });
});

const sourceFiles = () =>
  ['shared', 'functions', 'local'].flatMap((dir) =>
    (readdirSync(join(repoRoot, dir), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f)),
  );

/**
 * Every place in the code that writes conditionally, as the line a stack frame names: a call of
 * the helper, a transaction's `send(` (its command may start on the next line), Powertools' claim.
 */
function conditionalWriteSites(): string[] {
  return sourceFiles()
    .filter((file) => file !== 'shared/storage/conditional.ts')
    .flatMap((file) => {
      const lines = readFileSync(join(repoRoot, file), 'utf8').split('\n');
      return lines.flatMap((text, i) => {
        if (/\b(landed|writeConditionally)\(\{|super\._putRecord\(/.test(text)) return [`${file}:${i + 1}`];
        if (/new TransactWriteCommand\(/.test(text)) return [`${file}:${/\.send\(/.test(text) ? i + 1 : i}`];
        return [];
      });
    });
}

/** The text of each `new XCommand(…)` call in a source, parentheses balanced. */
function commandCalls(source: string, command: RegExp): string[] {
  const calls: string[] = [];
  for (const match of source.matchAll(command)) {
    let depth = 0;
    let i = match.index! + match[0].length - 1;
    const start = i;
    for (; i < source.length; i++) {
      if (source[i] === '(') depth++;
      if (source[i] === ')' && --depth === 0) break;
    }
    calls.push(source.slice(start, i + 1));
  }
  return calls;
}

describe('every conditional write in the code', () => {
  it('goes through writeConditionally (or is a transaction, which the SDK makes idempotent), and a scenario above reached it', () => {
    const bypassing = sourceFiles()
      .filter((file) => file !== 'shared/storage/conditional.ts')
      .filter((file) =>
        commandCalls(readFileSync(join(repoRoot, file), 'utf8'), /new (Put|Update|Delete)(Item)?Command\(/g).some((call) =>
          /\bConditionExpression\b/.test(call),
        ),
      );
    expect(bypassing, 'conditional single-item writes made around writeConditionally').toEqual([]);
    const all = conditionalWriteSites();
    expect(all.length).toBeGreaterThan(20);
    expect(
      all.filter((site) => !sites.has(site)),
      'conditional writes no scenario reached: add one to this file',
    ).toEqual([]);
  });
});
