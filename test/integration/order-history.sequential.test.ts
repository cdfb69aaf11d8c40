/**
 * An order's history lives in its own items (its status events), not in the order item: no
 * number of partner changes can grow the order toward DynamoDB's 400 KB item limit. Inline,
 * about 1,500 PATCH cycles made the order unwritable (PATCH answered 500 from then on).
 *
 * The test writes 4,000 changes to one order as fast as DynamoDB Local takes them, far more
 * than a tenant's rate limit lets through the API, so it runs on a runtime of its own: on the
 * shared stack, the stream backlog it leaves (DynamoDB Local's stream is one shard for the
 * whole table) held up the events of the files running beside it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { benchTenant, send } from '#bench/lib/client.ts';
import { freePort } from '#local/processes.ts';
import type { StoredOrder } from '#shared/orders/order.ts';
import { orderCommands } from '#shared/orders/order-commands.ts';
import { entryRevision } from '#shared/orders/order-log.ts';
import { readOrderRecords } from '#shared/orders/order-records.ts';
import { dynamoOrderRepository, readOrder, writeOrder } from '#shared/orders/order-store.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { retryOnRevisionConflict } from '#shared/storage/revision-retry.ts';
import { CALL_NOW_CONFIG, customerBody, ORDER_TENANT_CATALOG, orderBody, orderReaching, wholeHistory } from '../support/order-fixtures.ts';
import { killRuntime, startRuntime } from '../support/runtime.ts';
import { LATER } from '../support/times.ts';

const PATCHES = 2_000;

/** What the scheduler does with a validated order; the stream's own scheduler may have done it first. */
async function schedule(tenant: string, id: string): Promise<void> {
  await retryOnRevisionConflict(async () => {
    const order = (await readOrder(tenant, id, true))!;
    if (order.processing_state !== 'validated') return;
    await writeOrder(order, { to: 'scheduled', set: { next_contact_at: LATER } }, new Date());
  });
}

describe('order history', () => {
  it(`stays readable in full and the order writable after ${PATCHES} PATCH cycles`, { timeout: 600_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'commerce-history-'));
    const runtime = await startRuntime({ PORT: String(await freePort()), LOCAL_DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'ERROR' });
    try {
      // The test writes to the runtime's own table, as its functions do.
      Object.assign(process.env, JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')).env);
      const key = await benchTenant('history', CALL_NOW_CONFIG);
      const call = (method: string, path: string, body?: unknown) => send(runtime.baseUrl, key, method, path, body);
      const waitForOrder = (done: (order: { processing_state: string; source_version: string }) => boolean) =>
        orderReaching(() => call('GET', '/orders/long-lived'), done, 120_000);
      expect((await call('POST', '/products/batch', ORDER_TENANT_CATALOG)).body.rejected).toBe(0);
      expect((await call('PUT', '/customers/patient', customerBody('+491510000000'))).status).toBeLessThan(300);
      expect((await call('POST', '/orders', orderBody('long-lived', 'patient', { contact_not_before: LATER }))).status).toBe(201);
      await waitForOrder((o) => o.processing_state === 'scheduled');

      const requalify = async () => ({ to: 'validated' as const, reason: null, substitutions: [] });
      const commands = orderCommands({ orders: dynamoOrderRepository, callPlatform: { cancel: async () => undefined }, requalify });
      for (let n = 2; n <= PATCHES + 1; n++) {
        await commands.patch(key.tenant, 'long-lived', { source_version: String(n), priority: n % 100 }, { now: new Date(), requestId: `req-${n}` });
        await schedule(key.tenant, 'long-lived');
      }

      // Still writable through the API, as a partner would find it.
      const patched = await call('PATCH', '/orders/long-lived', { source_version: String(PATCHES + 2), priority: 7 });
      expect(patched.status).toBe(200);
      // The stream's scheduler moves the re-validated order on; compare the history with the order once it rests.
      await waitForOrder((o) => o.processing_state === 'scheduled' && o.source_version === String(PATCHES + 2));
      const orderPk = keys.order(key.tenant, 'long-lived').pk;
      const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: { pk: orderPk, sk: 'ORDER' }, ConsistentRead: true }));
      expect(Buffer.byteLength(JSON.stringify(marshall(Item!, { convertClassInstanceToMap: true })))).toBeLessThan(4_096);

      const history = await wholeHistory(orderPk, 500);
      // Created, scheduled, then validated and scheduled again per PATCH, and validated once more by the last one.
      expect(history.length).toBeGreaterThanOrEqual(2 + 2 * PATCHES + 1);
      expect(history[0]).toMatchObject({ from: null, to: 'received', revision: 1 });
      expect(history.map((e) => e.from)).toEqual([null, ...history.slice(0, -1).map((e) => e.to)]);
      const order = (await readOrder(key.tenant, 'long-lived', true)) as StoredOrder;
      expect(history.at(-1)).toMatchObject({ to: order.processing_state, revision: order.status_revision });

      // A stream record handled after later changes of its order reads the stretches of the log
      // between its last publication and its own write, not every one the order moved out since.
      const { history: moved } = await readOrderRecords(orderPk, { history: { after: 0, through: order.revision } });
      const through = order.revision - 40;
      const after = through - 10;
      const { history: span } = await readOrderRecords(orderPk, { history: { after, through } });
      const inSpan = (entry: string) => entryRevision(entry) > after && entryRevision(entry) <= through;
      expect(span.filter(inSpan)).toEqual(moved.filter(inSpan));
      expect(span.filter(inSpan).length).toBeGreaterThan(0);
      expect(Math.min(...span.map(entryRevision))).toBeLessThanOrEqual(after);
      expect(span.length, `${span.length} of ${moved.length} entries read`).toBeLessThan(moved.length / 50);
    } finally {
      await killRuntime(runtime.child);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
