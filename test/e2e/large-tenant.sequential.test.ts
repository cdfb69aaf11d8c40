/**
 * Reactions that walk a whole tenant finish on a large one: archiving a product used by
 * thousands of active orders rejects every one of them, and erasing their customer scrubs every
 * one, each job a bounded page per stream-processor invocation. In one invocation, as before,
 * the walk ran past the function's timeout, failed on every retry and was then dropped.
 * The orders are seeded straight into the table (not through the API), so seeding is quick.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FUNCTION_SETTINGS } from '#infra/deployment-settings.ts';
import { freePort } from '#local/processes.ts';
import { JOB_PAGE_SIZE } from '#shared/orders/reactions.ts';
import { eventually } from '../support/eventually.ts';
import { killRuntime, startRuntime } from '../support/runtime.ts';
import { LATER_UTC as LATER } from '../support/times.ts';

/**
 * `npm test` walks 1,000 orders (6 pages of JOB_PAGE_SIZE, so the page-by-page continuation is
 * what completes the job); `npm run test:large-tenant` walks 20,000 (about 10 minutes on DynamoDB Local).
 */
const ORDERS = Number(process.env.LARGE_TENANT_ORDERS ?? 1_000);

describe(`a tenant with ${ORDERS.toLocaleString('en')} orders`, () => {
  it('archiving their product rejects every active order, and erasing their customer scrubs every order, a bounded page per invocation', {
    timeout: 900_000,
  }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'commerce-large-'));
    const runtime = await startRuntime({ PORT: String(await freePort()), LOCAL_DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'ERROR' });
    try {
      // The test talks to the runtime's own table, as its functions do.
      Object.assign(process.env, JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')).env);
      const { benchTenant, send } = await import('#bench/lib/client.ts');
      const { seedOrders, jobsOf, countOrders } = await import('../support/large-tenant.ts');
      const key = await benchTenant('large');
      const call = (method: string, path: string, body?: unknown) => send(runtime.baseUrl, key, method, path, body);
      const product = {
        external_product_id: 'coffee',
        title: 'Coffee',
        source_version: '1',
        variants: [{ external_variant_id: 'beans', price: '9.99', currency: 'EUR' }],
      };
      expect((await call('POST', '/products/batch', { products: [product] })).body.rejected).toBe(0);
      const consent = { status: 'granted', proof: { source: 'checkout', reference: 'proof-1', collected_at: '2026-01-01T00:00:00Z' } };
      expect((await call('PUT', '/customers/regular', { phone: '+491510000000', locale: 'de-DE', consent, source_version: '1' })).status).toBeLessThan(300);
      await seedOrders(key.tenant, 'regular', 'beans', ORDERS, LATER);
      const archivedAt = Date.now();

      expect((await call('DELETE', '/products/coffee')).status).toBe(200);
      const requalified = await eventually(
        () => jobsOf(key.tenant, 'requalify-product-orders'),
        (jobs) => jobs[0]?.status === 'done',
        { timeoutMs: 600_000, everyMs: 2_000 },
      );
      expect(requalified[0]).toMatchObject({ status: 'done', orders: ORDERS });
      expect(requalified[0]!.pages).toBeGreaterThanOrEqual(ORDERS / JOB_PAGE_SIZE);
      expect(requalified[0]!.longest_page_ms).toBeLessThan(FUNCTION_SETTINGS.workerTimeoutSeconds * 1000);
      expect(await countOrders(key.tenant, { state: 'rejected' })).toBe(ORDERS);

      const erasedAt = Date.now();
      expect((await call('POST', '/customers/regular/anonymize')).status).toBe(200);
      const scrubbed = await eventually(
        () => jobsOf(key.tenant, 'scrub-customer-orders'),
        (jobs) => jobs[0]?.status === 'done',
        { timeoutMs: 600_000, everyMs: 2_000 },
      );
      expect(scrubbed[0]).toMatchObject({ status: 'done', orders: ORDERS });
      expect(scrubbed[0]!.longest_page_ms).toBeLessThan(FUNCTION_SETTINGS.workerTimeoutSeconds * 1000);
      expect(await countOrders(key.tenant, { withReference: true })).toBe(0);
      expect(await countOrders(key.tenant, {})).toBe(ORDERS);
      const figures = (job: (typeof scrubbed)[0], since: number) =>
        `${job.pages} pages, longest ${job.longest_page_ms} ms, ${Date.parse(job.updated_at) - since} ms in all`;
      console.info(`${ORDERS} orders: requalified in ${figures(requalified[0]!, archivedAt)}; scrubbed in ${figures(scrubbed[0]!, erasedAt)}`);
    } finally {
      await killRuntime(runtime.child);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
