/**
 * A partner's integration, end to end, using nothing but the client package: receive and
 * verify webhooks (when the tenant has no subscription yet: the one it makes is disabled again
 * at the end; one that exists is left alone), import a catalog and a sales rule, upsert
 * customers with their consent, place one order per sandbox scenario, then read each result
 * and its calls. Exits 1 when a delivery was refused or none came.
 *
 * Run it against `npm start`: `npm run example` (credentials from .local/credentials.json).
 * test/e2e/partner-client.test.ts runs it too.
 */

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import {
  type ClientOptions,
  CommerceApiError,
  constructEvent,
  createCommerceClient,
  type WebhookEvent,
  WebhookSignatureError,
} from '@commerce-interface/client';

/** The sandbox decides by the phone number's last digit (README, "Sandbox scenarios"). */
export const SCENARIOS = { confirmed: '0', unreachable: '1', declined: '3', upsell: '4', writebackFails: '8', invalidNumber: '9' } as const;
const EVENT_TYPES = [
  'commerce.order.status_changed.v1',
  'commerce.call.attempt_completed.v1',
  'commerce.order.result_ready.v1',
  'commerce.writeback.failed.v1',
] as const;

export interface IntegrationReport {
  /** business_outcome per order id, read with GET /orders/{id}/result. */
  outcomes: Record<string, string>;
  /** Call dispositions per order id, read with GET /orders/{id}/calls. */
  calls: Record<string, string[]>;
  /** Every delivery that verified, as received. */
  events: WebhookEvent[];
  /** Deliveries refused (bad signature or stale), by reason. */
  refused: string[];
  /**
   * Why webhooks were not received: the tenant's subscription existed (its secret was shown
   * when it was made, and its URL is someone else's), so the example left it alone.
   */
  webhooksSkipped?: string;
}

/** A webhook receiver: verifies each delivery over its raw bytes, answers 2xx fast, keeps the event. */
async function startReceiver(secrets: () => string[], report: IntegrationReport): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const event = constructEvent(Buffer.concat(chunks), req.headers, secrets());
        // Deliveries are at least once: deduplicate by event_id.
        if (!report.events.some((e) => e.event_id === event.event_id)) report.events.push(event);
        res.writeHead(204).end();
      } catch (error) {
        report.refused.push(error instanceof WebhookSignatureError ? error.reason : 'unreadable');
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks/commerce`, server };
}

async function importCatalog(client: ReturnType<typeof createCommerceClient>, prefix: string) {
  const batch = await client.products.upsertBatch({
    products: [
      {
        external_product_id: `${prefix}coffee`,
        title: 'Coffee beans',
        category: 'coffee/beans',
        source_version: '1',
        variants: [
          { external_variant_id: `${prefix}beans-250g`, price: '9.99', currency: 'EUR', max_quantity: 10 },
          { external_variant_id: `${prefix}beans-1kg`, price: '24.50', currency: 'EUR' },
        ],
      },
    ],
  });
  if (batch.rejected > 0) throw new Error(`catalog rejected: ${JSON.stringify(batch.results)}`);
  await client.salesRules.put(`${prefix}upsell-1kg`, {
    rule_type: 'upsell',
    priority: 10,
    applies_to: { external_variant_ids: [`${prefix}beans-250g`] },
    action: { suggest_variant: `${prefix}beans-1kg` },
    source_version: '1',
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until every order is final (a partner may rely on webhooks alone; this also works without). */
async function untilFinal(client: ReturnType<typeof createCommerceClient>, ids: string[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const orders = await Promise.all(ids.map((id) => client.orders.get(id)));
    if (orders.every((o) => ['completed', 'cancelled', 'rejected'].includes(o.processing_state))) return;
    if (Date.now() > deadline) throw new Error(`orders not final in time: ${orders.map((o) => `${o.external_order_id}=${o.processing_state}`).join(', ')}`);
    await sleep(250);
  }
}

export async function runIntegration(options: ClientOptions & { prefix?: string; timeoutMs?: number }): Promise<IntegrationReport> {
  const client = createCommerceClient(options);
  const prefix = options.prefix ?? `ex-${Date.now().toString(36)}-`;
  const report: IntegrationReport = { outcomes: {}, calls: {}, events: [], refused: [] };
  let secrets: string[] = [];
  const receiver = await startReceiver(() => secrets, report);
  // The tenant's one subscription is someone's (a `sandbox listen`, a receiver of yours): the
  // example takes it only when there is none, and disables what it made when it ends.
  const existing = await client.webhooks.getSubscription().catch((error: unknown) => {
    if (error instanceof CommerceApiError && error.status === 404) return undefined;
    throw error;
  });
  let created = false;
  try {
    if (existing) {
      report.webhooksSkipped = `the tenant's webhook subscription exists (${existing.url}); the example left it alone and received no webhooks`;
    } else {
      const subscription = await client.webhooks.putSubscription({ url: receiver.url, event_types: [...EVENT_TYPES], enabled: true });
      created = true;
      // The secret is shown once, on the PUT that creates the subscription: keep it.
      if (subscription.secret) secrets = [subscription.secret];
    }
    await importCatalog(client, prefix);
    const ids = await Promise.all(
      Object.entries(SCENARIOS).map(async ([name, digit]) => {
        const customer = `${prefix}customer-${name}`;
        await client.customers.put(customer, {
          phone: `+49151000000${digit}`,
          locale: 'de-DE',
          consent: { status: 'granted', proof: { source: 'checkout', reference: `${customer}-consent`, collected_at: '2026-11-01T09:30:00Z' } },
          source_version: '1',
        });
        const order = await client.orders.create({
          order_kind: 'standard',
          external_order_id: `${prefix}order-${name}`,
          external_customer_id: customer,
          items: [{ external_variant_id: `${prefix}beans-250g`, quantity: 2, price: '9.99', currency: 'EUR' }],
          contact_permission: { status: 'granted' },
          source_version: '1',
        });
        return order.external_order_id;
      }),
    );
    await untilFinal(client, ids, options.timeoutMs ?? 90_000);
    for (const id of ids) {
      report.outcomes[id] = (await client.orders.result(id)).business_outcome;
      report.calls[id] = [];
      for await (const attempt of client.orders.calls(id)) report.calls[id].push(attempt.call_disposition);
    }
    // Each completed order's result_ready event is on its way, and the write-back failure after
    // its result: wait for all of them (deliveries come in any order).
    const deadline = Date.now() + (options.timeoutMs ?? 90_000);
    const expected = [...ids.map((id) => ['commerce.order.result_ready.v1', id]), ['commerce.writeback.failed.v1', `${prefix}order-writebackFails`]];
    while (created && expected.some(([type, id]) => !report.events.some((e) => e.event_type === type && e.external_order_id === id)) && Date.now() < deadline) {
      await sleep(250);
    }
    return report;
  } finally {
    if (created) await client.webhooks.putSubscription({ url: receiver.url, event_types: [...EVENT_TYPES], enabled: false });
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const credentials = JSON.parse(readFileSync(process.env.CREDENTIALS_FILE ?? '.local/credentials.json', 'utf8'));
  const report = await runIntegration({ baseUrl: credentials.base_url, keyId: credentials.key_id, secret: credentials.secret });
  for (const [id, outcome] of Object.entries(report.outcomes)) console.log(`${id}: ${outcome} after ${report.calls[id]?.join(', ')}`);
  if (report.webhooksSkipped) console.log(`Webhooks: ${report.webhooksSkipped}.`);
  else
    console.log(`${report.events.length} webhook events verified and received, ${report.refused.length} refused; the example's subscription is disabled again`);
  // Refused deliveries (or none at all where some were due) are a failed run, not a report.
  if (report.refused.length > 0 || (!report.webhooksSkipped && report.events.length === 0)) {
    console.error('example: webhook deliveries were refused or missing');
    process.exitCode = 1;
  }
}
