/**
 * `npm run contract:record`: records the reference's examples from one run of the sandbox. A
 * local stack of its own; a tenant whose orders are called at once and whose results are
 * written back to a store of the script's own (it refuses one order, so that order's write-back
 * fails); every request of contract/examples.json in order, then a read of every other
 * operation on what those created; the events of a listen session that takes every event type.
 * Each operation's first answer of each success status, and each event type's chosen payload, go to
 * contract/recorded-examples.json with the request they answer, ids and all, which
 * `npm run contract` puts into the contract (samples.ts). test/unit/recorded-examples checks
 * each against its schema and against the request it answers. Ids and times differ from run to
 * run, so a recording changes the contract: record when its version rises for another reason.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchKey, send } from '#bench/lib/client.ts';
import type { RecordedAnswer, RecordedExamples } from '#contract/samples.ts';
import { ROUTES } from '#functions/routes.ts';
import { startLocalStack } from '#local/stack.ts';
import { BASE_PATH, fillPath } from '#shared/api/routes.ts';
import { SCOPES } from '#shared/api/scopes.ts';
import { EVENT_TYPES } from '#shared/events/event-types.ts';

type Example = Omit<RecordedAnswer, 'status' | 'answer'>;

const OUT = join(import.meta.dirname, '..', 'contract', 'recorded-examples.json');
/** The order of contract/examples.json whose write-back the store refuses: `commerce.writeback.failed.v1`. */
const REFUSED_ORDER = 'o-2';

/** A secret shown once is shown in the examples by a stand-in of its shape, never the recorded one. */
const EXAMPLE_SECRET = `whsec_${Buffer.from('an example secret, never a real one').toString('base64')}`;
const withoutSecrets = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutSecrets)
    : value && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k.endsWith('secret') && typeof v === 'string' ? EXAMPLE_SECRET : withoutSecrets(v)]))
      : value;

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * A loopback server answering each request as `answer` says: the webhook receiver and the
 * store. Its origin is shown in the examples as `shownAs`, the host the example names.
 */
async function startServer(shownAs: string, answer: (body: string) => { status: number; body: string }) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const answered = answer(body);
      res.writeHead(answered.status, { 'Content-Type': 'application/json' });
      res.end(answered.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { origin, shownAs, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The store takes every result but REFUSED_ORDER's (422). */
const storeAnswer = (body: string) =>
  (JSON.parse(body) as { external_order_id?: string }).external_order_id === REFUSED_ORDER
    ? { status: 422, body: JSON.stringify({ title: 'Order is archived in the store' }) }
    : { status: 200, body: '{}' };

/** The recording tenant: its orders called at once, its results written back to the store, signed. */
async function recordingTenant(storeOrigin: string): Promise<BenchKey> {
  const { putTenantConfig } = await import('#shared/tenants/config-writer.ts');
  const { createApiKey } = await import('#shared/auth/api-keys.ts');
  const tenant = 'acme-coffee';
  await putTenantConfig(
    tenant,
    {
      markets: [{ country: 'DE', locale_default: 'de-DE', calling_days: [1, 2, 3, 4, 5, 6, 7] }],
      quiet_hours: { timezone: 'Europe/Berlin', dont_call_hour_start: 0, dont_call_hour_end: 0 },
      writeback: { enabled: true, url: `${storeOrigin}/commerce/results` },
    },
    { callPlatform: 'sandbox' },
  );
  await (await import('#shared/writeback/writeback-secret.ts')).rotateWritebackSecret(tenant);
  const created = await createApiKey(tenant, [...SCOPES]);
  return { tenant, keyId: created.key_id, secret: created.secret };
}

/** A request of the operation: its method, and its path with the parameters filled from `ids`. */
const requestOf = (operationId: string, ids: Record<string, string> = {}, body?: unknown): Example => {
  const route = ROUTES.find((r) => r.operationId === operationId)!;
  return { operationId, method: route.method, path: fillPath(route, ids).slice(BASE_PATH.length), ...(body === undefined ? {} : { body }) };
};

/** The operations the examples do not make, in the route table's order: reads first, then the rest, the customer's erasure last. */
const remaining = (answered: ReadonlySet<string>) => {
  const left = ROUTES.filter((r) => !answered.has(r.operationId));
  const last = (r: (typeof ROUTES)[number]) => (r.method === 'GET' ? 0 : r.operationId === 'anonymizeCustomer' ? 2 : 1);
  return left.sort((a, b) => last(a) - last(b));
};

/** Each event type's example: the first order's last change (into completed), its attempt and result, and the refused order's write-back. */
function wantedEvent(type: string, payload: { external_order_id: string; test?: boolean; data: { processing_state?: string } }, order: string): boolean {
  if (payload.test) return false;
  if (type === 'commerce.writeback.failed.v1') return payload.external_order_id === REFUSED_ORDER;
  return payload.external_order_id === order && (type !== 'commerce.order.status_changed.v1' || payload.data.processing_state === 'completed');
}

interface Session {
  call(example: Example): Promise<unknown>;
  read<T>(path: string): Promise<T | undefined>;
}

/** Every request of examples.json in order, and a second order whose write-back the store refuses; both orders' write-backs settled. */
async function playExamples(session: Session, requests: Example[], order: string): Promise<void> {
  const first = requests.find((r) => r.operationId === 'createOrder')!;
  for (const example of requests) {
    // A PATCH requalifies at once, without the grace a new order gets for its variants to reach the variant index: the first order shows they have.
    if (example.operationId === 'updateOrder')
      await until(
        'the first order qualified',
        async () => ((await session.read<{ processing_state: string }>(`/orders/${order}`))?.processing_state ?? 'received') !== 'received' || undefined,
      );
    await session.call(example);
  }
  await session.call({ ...first, body: { ...(first.body as object), external_order_id: REFUSED_ORDER } });
  // The same order and subscription again: the answers of an operation's other success.
  await session.call(first);
  await session.call(requests.find((r) => r.operationId === 'putWebhookSubscription')!);
  for (const id of [order, REFUSED_ORDER])
    await until(
      `${id}'s write-back`,
      async () =>
        ['written', 'failed'].includes((await session.read<{ writeback?: { state: string } }>(`/orders/${id}/result`))?.writeback?.state ?? '') || undefined,
    );
}

/** The operations the examples do not make, on what the examples made. */
async function playTheRest(session: Session, requests: Example[], ids: Record<string, string>, answered: () => Set<string>): Promise<void> {
  const first = requests.find((r) => r.operationId === 'createOrder')!;
  ids.externalCustomerId = (first.body as { external_customer_id: string }).external_customer_id;
  ids.externalProductId = (requests.find((r) => r.operationId === 'upsertProductsBatch')!.body as { products: { external_product_id: string }[] })
    .products[0]!.external_product_id;
  ids.externalRuleId = decodeURIComponent(
    requests
      .find((r) => r.operationId === 'putSalesRule')!
      .path.split('/')
      .at(-1)!,
  );
  await session.call(requestOf('testWebhookSubscription'));
  ids.deliveryId = (await session.read<{ data: { delivery_id: string }[] }>(requestOf('listWebhookDeliveries').path))!.data.at(-1)!.delivery_id;
  for (const route of remaining(answered())) await session.call(requestOf(route.operationId, ids));
}

/** Each event type's example from the listen session's feed, once every type has come. */
async function readEvents(session: Session, listenSessionId: string, order: string, shown: (value: unknown) => unknown): Promise<Record<string, unknown>> {
  const events: Record<string, unknown> = {};
  await until('every event type on the listen feed', async () => {
    // From the start each time: the run's few dozen events are one page.
    const feed = await session.read<{ data: { event_type: string; payload: string }[] }>(requestOf('readListenFeed', { listenSessionId }).path);
    for (const entry of feed?.data ?? [])
      if (wantedEvent(entry.event_type, JSON.parse(entry.payload), order)) events[entry.event_type] ??= shown(JSON.parse(entry.payload));
    return EVENT_TYPES.every((type) => type in events) || undefined;
  });
  return events;
}

export async function record(): Promise<RecordedExamples & { about: string }> {
  const { requests } = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'contract', 'examples.json'), 'utf8')) as { requests: Example[] };
  const store = await startServer('https://store.example.com', storeAnswer);
  const receiver = await startServer('https://hooks.example.com', () => ({ status: 200, body: 'ok' }));
  // The example names hooks.example.com, which resolves nowhere offline: the request goes to the receiver, and both show as the example's host.
  const toReceiver = (body: unknown) => JSON.parse(JSON.stringify(body ?? null).replaceAll(receiver.shownAs, receiver.origin)) ?? undefined;
  const shown = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value).replaceAll(receiver.origin, receiver.shownAs).replaceAll(store.origin, store.shownAs));
  const stack = await startLocalStack({
    env: {
      STREAM_RECOVERY_SECONDS: '1',
      CALL_RETRY_DELAY_SECONDS: '1',
      AUTH_CACHE_SECONDS: '1',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
    reconcileEveryMs: 500,
  });
  try {
    const key = await recordingTenant(store.origin);
    const answers: RecordedAnswer[] = [];
    const session: Session = {
      async call(example) {
        const { status, body } = await send(stack.baseUrl, key, example.method, example.path, toReceiver(example.body));
        if (status >= 300) throw new Error(`${example.operationId} ${example.method} ${example.path} answered ${status}: ${JSON.stringify(body)}`);
        if (!answers.some((a) => a.operationId === example.operationId && a.status === status))
          answers.push({ ...example, status, answer: shown(body ?? null) });
        return body;
      },
      read: async <T>(path: string) => (await send(stack.baseUrl, key, 'GET', path)).body as T | undefined,
    };
    // Every event type, from before the first request: the listen feed carries each event's exact payload.
    const listen = (await session.call(requestOf('createListenSession', {}, { event_types: [...EVENT_TYPES] }))) as { listen_session_id: string };
    const order = (requests.find((r) => r.operationId === 'createOrder')!.body as { external_order_id: string }).external_order_id;
    await playExamples(session, requests, order);
    await playTheRest(
      session,
      requests,
      { externalOrderId: order, listenSessionId: listen.listen_session_id },
      () => new Set(answers.map((a) => a.operationId)),
    );
    const events = await readEvents(session, listen.listen_session_id, order, shown);
    return {
      about:
        'Answers and events recorded from one run of the sandbox by `npm run contract:record` (local/record-examples.ts): each operation with the request it answers, each event type with its payload. `npm run contract` puts them into the contract as its examples.',
      answers: answers.map((a) => ({ ...a, answer: withoutSecrets(a.answer) })),
      events,
      orders: [
        ...requests.filter((r) => r.operationId === 'createOrder').map((r) => (r.body as { external_order_id: string }).external_order_id),
        REFUSED_ORDER,
      ],
    };
  } finally {
    await stack.stop();
    await store.close();
    await receiver.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const recorded = await record();
  writeFileSync(OUT, `${JSON.stringify(recorded, null, 2)}\n`);
  console.log(`recorded ${recorded.answers.length} answers and ${Object.keys(recorded.events).length} events in ${OUT}`);
}
