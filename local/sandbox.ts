/**
 * The sandbox CLI, in the spirit of `stripe listen` / `stripe trigger`, for the local runtime
 * (credentials from its data directory) or any deployment (`--base-url`, `--key-id`, and the
 * secret in COMMERCE_KEY_SECRET). It talks to the API through the partner client only.
 *
 *   npm run sandbox -- listen --forward-to http://127.0.0.1:4000/hooks [--for SECONDS] [--secret whsec_…]
 *   npm run sandbox -- trigger <scenario> [--wait]
 *   npm run sandbox -- scenarios
 *   npm run sandbox -- request METHOD PATH [--data JSON]
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CommerceApiError, type CommerceClient, createCommerceClient } from '#client/index.ts';
import { signRequest } from '#shared/auth/signing.ts';
import { signatureHeaders } from '#shared/outbound/signature.ts';
import { type CommandHelp, parseCli } from './cli.ts';
import { localDataDir } from './data-dir.ts';
import { SANDBOX_CLI_AGENT } from './terminal.ts';

/** The sandbox dialer decides by the customer phone number's last digit (README, "Sandbox scenarios"). */
export const SANDBOX_SCENARIOS: Record<string, { digit?: string; shows: string }> = {
  confirmed: { digit: '0', shows: 'answered, confirmed as ordered' },
  unreachable: { digit: '1', shows: 'no_answer on every attempt: completed, unreachable' },
  'no-answer-then-confirmed': { digit: '2', shows: 'no_answer, then answered and confirmed' },
  declined: { digit: '3', shows: 'answered, declined (customer_declined)' },
  upsell: { digit: '4', shows: "answered, the upsell rule's suggestion accepted: modified" },
  'busy-then-confirmed': { digit: '5', shows: 'busy, then answered and confirmed' },
  'writeback-failed': { digit: '8', shows: 'confirmed, then commerce.writeback.failed.v1' },
  'invalid-number': { digit: '9', shows: 'invalid_number: completed, invalid_number' },
  cancelled: { digit: '0', shows: 'an order due in the future, cancelled at once' },
  'test-event': { shows: 'POST /webhook-subscription/test: one event with test: true' },
};

class UsageError extends Error {}

/** The key to sign with and where to send: `--base-url`/`--key-id` with COMMERCE_KEY_SECRET, else the local runtime's credentials. */
function credentialsFrom(values: { 'base-url'?: string | undefined; 'key-id'?: string | undefined }): { baseUrl: string; keyId: string; secret: string } {
  if (values['base-url'] || values['key-id']) {
    const secret = process.env.COMMERCE_KEY_SECRET;
    if (!values['base-url'] || !values['key-id'] || !secret)
      throw new UsageError('--base-url and --key-id go together, with the secret in COMMERCE_KEY_SECRET');
    return { baseUrl: values['base-url'], keyId: values['key-id'], secret };
  }
  const file = join(localDataDir(), 'credentials.json');
  try {
    const credentials = JSON.parse(readFileSync(file, 'utf8')) as { base_url: string; key_id: string; secret: string };
    return { baseUrl: credentials.base_url, keyId: credentials.key_id, secret: credentials.secret };
  } catch {
    throw new UsageError(`no local credentials at ${file}: start the local runtime first (npm start)`);
  }
}

function clientFrom(values: { 'base-url'?: string | undefined; 'key-id'?: string | undefined }): CommerceClient {
  return createCommerceClient({ ...credentialsFrom(values), userAgent: SANDBOX_CLI_AGENT });
}

/**
 * One signed request from the shell, as `curl -u` would be if HMAC signing fitted in a flag:
 * the answer's status, its request id and its body (pretty JSON). Exits 1 unless 2xx.
 */
async function request(values: { 'base-url'?: string | undefined; 'key-id'?: string | undefined; data?: string | undefined }, method: string, target: string) {
  const { baseUrl, keyId, secret } = credentialsFrom(values);
  const verb = method.toUpperCase();
  if (!/^(GET|POST|PUT|PATCH|DELETE)$/.test(verb)) throw new UsageError(`request: METHOD is GET, POST, PUT, PATCH or DELETE, not ${method}`);
  if (!target.startsWith('/')) throw new UsageError(`request: PATH starts with / (e.g. /orders), not ${target}`);
  const url = new URL(`${baseUrl}${target}`);
  const query: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) query[name] = [...(query[name] ?? []), value];
  const body = values.data ?? '';
  if (body) {
    try {
      JSON.parse(body);
    } catch {
      throw new UsageError('request: --data must be JSON');
    }
  }
  const headers: Record<string, string> = {
    ...signRequest({ keyId, secret }, { method: verb, path: url.pathname, query, body, nonce: randomUUID() }),
    ...(body ? { 'Content-Type': 'application/json' } : {}),
    ...(verb === 'GET' ? {} : { 'Idempotency-Key': randomUUID() }),
    'User-Agent': SANDBOX_CLI_AGENT,
  };
  const res = await fetch(url, { method: verb, headers, ...(body ? { body } : {}) });
  const text = await res.text();
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON: shown as it came.
  }
  console.log(`${res.status} ${res.statusText}  request ${res.headers.get('x-request-id') ?? 'none'}`);
  if (shown) console.log(shown);
  if (!res.ok) process.exitCode = 1;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => new Date().toISOString().slice(11, 19);

/** A session secret shaped as the service's own (Standard Webhooks' `whsec_` and base64). */
const sessionSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * Forwards the tenant's events to `url` through a listen session: the tenant's webhook
 * subscription is left as it is, and the service never has to reach this machine (the feed is
 * pulled), so it works against a deployed sandbox tenant as well. Each event goes out once,
 * signed with a secret of this session alone; the session ends by itself a minute after the
 * last read.
 */
async function listen(client: CommerceClient, url: string, forSeconds: number | undefined, given: string | undefined): Promise<void> {
  if (given !== undefined && !/^whsec_[A-Za-z0-9+/]{20,}={0,2}$/.test(given))
    throw new UsageError('--secret must be a whsec_… secret (one a previous listen printed)');
  const session = await client.webhooks.listen({});
  const secret = given ?? sessionSecret();
  console.log(`Forwarding every event type to ${url} (listen session ${session.listen_session_id}; your webhook subscription is left as it is)`);
  if (given) console.log('Signing with the secret given (--secret): your receiver keeps the one it has');
  else console.log(`Webhook signing secret (shown once; give it to your receiver, or pass it as --secret next time to keep it): ${secret}`);
  console.log('Ready: waiting for events (Ctrl-C to stop; the session ends by itself a minute later)');
  const forwarded = new Set<string>();
  let after: string | undefined;
  const until = forSeconds === undefined ? Number.POSITIVE_INFINITY : Date.now() + forSeconds * 1000;
  while (Date.now() < until) {
    const feed = await client.webhooks.listenFeed(session.listen_session_id, after ? { after } : {});
    for (const entry of feed.data) {
      if (forwarded.has(entry.event_id)) continue;
      forwarded.add(entry.event_id);
      console.log(`${now()}  ${entry.event_type.padEnd(36)} ${entry.event_id}  → ${await forward(url, secret, entry)}`);
    }
    after = feed.next_after ?? after;
    if (feed.data.length === 0) await sleep(500);
  }
}

/** One event to the receiver, signed as the service signs a delivery; what became of it, in a few words. */
async function forward(url: string, secret: string, entry: { event_id: string; payload: string }): Promise<string> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...signatureHeaders({ current: secret }, entry.event_id, entry.payload, new Date()) },
      body: entry.payload,
      signal: AbortSignal.timeout(15_000),
    });
    await res.arrayBuffer();
    return String(res.status);
  } catch (error) {
    return `not delivered (${(error as Error).name === 'TimeoutError' ? 'timed out' : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message)})`;
  }
}

async function sandboxCatalog(client: CommerceClient): Promise<void> {
  await client.products.upsertBatch({
    products: [
      {
        external_product_id: 'sandbox-coffee',
        title: 'Sandbox coffee beans',
        category: 'coffee/beans',
        source_version: '1',
        variants: [
          { external_variant_id: 'sandbox-beans-250g', price: '9.99', currency: 'EUR' },
          { external_variant_id: 'sandbox-beans-1kg', price: '24.50', currency: 'EUR' },
        ],
      },
    ],
  });
  await client.salesRules.put('sandbox-upsell-1kg', {
    rule_type: 'upsell',
    priority: 1,
    applies_to: { external_variant_ids: ['sandbox-beans-250g'] },
    action: { suggest_variant: 'sandbox-beans-1kg' },
    source_version: '1',
  });
}

async function trigger(client: CommerceClient, scenario: string, wait: boolean): Promise<void> {
  const chosen = SANDBOX_SCENARIOS[scenario];
  if (!chosen) throw new UsageError(`unknown scenario ${scenario}; one of: ${Object.keys(SANDBOX_SCENARIOS).join(', ')}`);
  if (!chosen.digit) {
    const test = await client.webhooks.test().catch((error: unknown) => {
      // Right after the quickstart there is no subscription to send a test event to: say what to do.
      if (error instanceof CommerceApiError && error.status === 404)
        throw new UsageError(
          'test-event needs a webhook subscription or a running listen: PUT /webhook-subscription with your receiver, or run `npm run sandbox -- listen --forward-to URL` in another terminal first',
        );
      throw error;
    });
    if (test.delivery_id === null) return console.log(`Test event ${test.event_id} sent to your listen session (no subscription, so no delivery to watch)`);
    return console.log(`Test event ${test.event_id} queued as delivery ${test.delivery_id}`);
  }
  await sandboxCatalog(client);
  const customer = `sandbox-customer-${chosen.digit}`;
  await client.customers.put(customer, {
    phone: `+49151000000${chosen.digit}`,
    locale: 'de-DE',
    consent: { status: 'granted', proof: { source: 'sandbox', reference: customer, collected_at: '2026-01-01T00:00:00Z' } },
    source_version: String(Date.now()),
  });
  const id = `sandbox-${scenario}-${Date.now().toString(36)}`;
  const later = scenario === 'cancelled' ? { contact_not_before: new Date(Date.now() + 7 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z') } : {};
  const items = [{ external_variant_id: 'sandbox-beans-250g', quantity: 2, price: '9.99', currency: 'EUR' }];
  const order = await client.orders.create({
    order_kind: 'standard',
    external_order_id: id,
    external_customer_id: customer,
    items,
    contact_permission: { status: 'granted' },
    source_version: '1',
    ...later,
  });
  if (scenario === 'cancelled') await client.orders.cancel(id, { reason: 'other' });
  console.log(`Order ${id} (${chosen.shows}), correlation ${order.correlation_id}`);
  if (!wait) return;
  for (let i = 0; i < 240; i++) {
    const current = await client.orders.get(id);
    if (['completed', 'cancelled', 'rejected'].includes(current.processing_state)) {
      if (current.processing_state !== 'completed') return console.log(`Final: ${current.processing_state}`);
      const result = await client.orders.result(id);
      return console.log(`Final: completed, ${result.business_outcome}, total ${result.final_order_snapshot.total} ${result.final_order_snapshot.currency}`);
    }
    await sleep(500);
  }
  throw new Error(`order ${id} is not final after 2 minutes`);
}

const COMMANDS: readonly CommandHelp[] = [
  {
    command: 'listen',
    usage:
      "listen --forward-to URL [--for SECONDS] [--secret whsec_…]   (forwards this tenant's events to URL, signed with a secret of its own or the one given, until stopped; the webhook subscription is left as it is)",
    example: 'listen --forward-to http://127.0.0.1:3000/webhooks --for 60',
  },
  { command: 'trigger', usage: 'trigger SCENARIO [--wait]   (one order that plays SCENARIO; `scenarios` lists them)', example: 'trigger confirmed --wait' },
  { command: 'scenarios', usage: 'scenarios', example: 'scenarios' },
  {
    command: 'request',
    usage: 'request METHOD PATH [--data JSON]   (one signed request with the local credentials, or --base-url/--key-id; prints status, request id and body)',
    example: 'request POST /orders --data \'{"order_kind":"standard", …}\'',
  },
];

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseCli('sandbox', COMMANDS, () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'forward-to': { type: 'string' },
        for: { type: 'string' },
        wait: { type: 'boolean', default: false },
        'base-url': { type: 'string' },
        'key-id': { type: 'string' },
        data: { type: 'string' },
        secret: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  const [command, scenario] = positionals;
  if (command === 'scenarios') {
    for (const [name, s] of Object.entries(SANDBOX_SCENARIOS)) console.log(`${name.padEnd(26)} ${s.digit ? `phone …${s.digit}  ` : '           '}${s.shows}`);
    return;
  }
  if (command === 'listen') {
    if (!values['forward-to']) throw new UsageError('listen needs --forward-to URL');
    const forSeconds = values.for === undefined ? undefined : Number(values.for);
    if (forSeconds !== undefined && !(forSeconds > 0)) throw new UsageError('--for takes a number of seconds');
    return listen(clientFrom(values), values['forward-to'], forSeconds, values.secret);
  }
  if (command === 'trigger' && scenario) return trigger(clientFrom(values), scenario, values.wait!);
  if (command === 'request') {
    const [, method, target] = positionals;
    if (!method || !target) throw new UsageError('request needs METHOD and PATH, e.g. `request GET /orders`');
    return request(values, method, target);
  }
  throw new UsageError(
    `sandbox: unknown command${command ? ` "${command}"` : ''}; the commands: ${COMMANDS.map((c) => c.command).join(', ')} (npm run sandbox -- --help)`,
  );
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError || (error instanceof Error && error.name === 'TypeError' && 'code' in error)) console.error(error.message);
  else if (error instanceof CommerceApiError) console.error(`${error.message} (request ${error.requestId ?? 'none'})`);
  else console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
});
