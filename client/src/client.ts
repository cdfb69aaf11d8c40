/**
 * The partner client: one method per operation of the contract, typed from it, over
 * openapi-fetch with the signing, retrying fetch of `transport.ts`. Every mutation gets one
 * Idempotency-Key per call (or the caller's), reused by each of its retries; lists walk their
 * pages as async iterators; any answer other than 2xx raises a `CommerceApiError`.
 */
import { randomUUID } from 'node:crypto';
import createClient, { defaultPathSerializer } from 'openapi-fetch';
import { CommerceApiError, type Problem } from './errors.ts';
import type { operations, paths } from './schema.ts';
import { signedFetch, type TransportOptions } from './transport.ts';

export interface ClientOptions extends TransportOptions {
  /** Up to and including the base path, e.g. `http://127.0.0.1:3000/api/v1/commerce`. */
  baseUrl: string;
}

export interface MutationOptions {
  /** The key of this logical call; a new UUID when absent. Pass your own to make a call safe to repeat across restarts. */
  idempotencyKey?: string;
}

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
export type RequestBody<Op extends keyof operations> = Json<NonNullable<operations[Op]['requestBody']>>;
export type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;
type Page<Op extends keyof operations> = operations[Op]['responses'] extends { 200: infer R } ? Json<R> : never;
type Item<Op extends keyof operations> = Page<Op> extends { data: (infer T)[] } ? T : never;
/** Filters of a list; the client manages `cursor` itself. */
export type ListQuery<Op extends keyof operations> = Omit<Query<Op>, 'cursor'>;

type ConsentProof = NonNullable<RequestBody<'putCustomer'>['consent']['proof']>;

/**
 * PUT /customers/{id}'s body, with what the contract says in words made a type: consent
 * `granted` carries its proof (the service answers 422 at /consent/proof otherwise).
 */
export type CustomerInput = Omit<RequestBody<'putCustomer'>, 'consent'> & {
  consent: { status: 'granted'; proof: ConsentProof } | { status: 'withdrawn'; proof?: ConsentProof };
};

/** Every answer carries the X-Request-Id of the request that got it: quote it to support. Not enumerable, so the answer serialises as the service sent it. */
export type Answer<T> = T & { readonly requestId?: string };

async function unwrap<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Answer<T>> {
  const { data, error, response } = await pending;
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (!response.ok) throw CommerceApiError.fromProblem(response.status, error as Problem | undefined, requestId);
  if (data && typeof data === 'object' && requestId) Object.defineProperty(data, 'requestId', { value: requestId, enumerable: false });
  return data as Answer<T>;
}

/** Every item of a list, page after page, as the service's `next_cursor` leads. */
async function* walk<T>(page: (cursor: string | undefined) => Promise<{ data: T[]; next_cursor: string | null }>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const current = await page(cursor);
    yield* current.data;
    cursor = current.next_cursor ?? undefined;
  } while (cursor);
}

type Api = ReturnType<typeof createClient<paths>>;
type Key = (o?: MutationOptions) => { 'Idempotency-Key': string };
type List<Op extends keyof operations> = AsyncGenerator<Item<Op>, void, undefined>;

function catalog(api: Api, key: Key) {
  const page = (query: Query<'listProducts'> = {}) => unwrap(api.GET('/products', { params: { query } }));
  return {
    upsertBatch: (body: RequestBody<'upsertProductsBatch'>, o?: MutationOptions) => unwrap(api.POST('/products/batch', { params: { header: key(o) }, body })),
    list: (query: ListQuery<'listProducts'> = {}): List<'listProducts'> => walk((cursor) => page({ ...query, cursor })),
    listPage: page,
    get: (externalProductId: string) => unwrap(api.GET('/products/{externalProductId}', { params: { path: { externalProductId } } })),
    archive: (externalProductId: string, o?: MutationOptions) =>
      unwrap(api.DELETE('/products/{externalProductId}', { params: { path: { externalProductId }, header: key(o) } })),
  };
}

function customers(api: Api, key: Key) {
  return {
    put: (externalCustomerId: string, body: CustomerInput, o?: MutationOptions) =>
      unwrap(api.PUT('/customers/{externalCustomerId}', { params: { path: { externalCustomerId }, header: key(o) }, body })),
    get: (externalCustomerId: string) => unwrap(api.GET('/customers/{externalCustomerId}', { params: { path: { externalCustomerId } } })),
    anonymize: (externalCustomerId: string, o?: MutationOptions) =>
      unwrap(api.POST('/customers/{externalCustomerId}/anonymize', { params: { path: { externalCustomerId }, header: key(o) } })),
  };
}

function orders(api: Api, key: Key) {
  const page = (query: Query<'listOrders'> = {}) => unwrap(api.GET('/orders', { params: { query } }));
  const callsPage = (externalOrderId: string, query: Query<'listOrderCalls'> = {}) =>
    unwrap(api.GET('/orders/{externalOrderId}/calls', { params: { path: { externalOrderId }, query } }));
  return {
    create: (body: RequestBody<'createOrder'>, o?: MutationOptions) => unwrap(api.POST('/orders', { params: { header: key(o) }, body })),
    list: (query: ListQuery<'listOrders'> = {}): List<'listOrders'> => walk((cursor) => page({ ...query, cursor })),
    listPage: page,
    get: (externalOrderId: string) => unwrap(api.GET('/orders/{externalOrderId}', { params: { path: { externalOrderId } } })),
    update: (externalOrderId: string, body: RequestBody<'updateOrder'>, o?: MutationOptions) =>
      unwrap(api.PATCH('/orders/{externalOrderId}', { params: { path: { externalOrderId }, header: key(o) }, body })),
    cancel: (externalOrderId: string, body: RequestBody<'cancelOrder'>, o?: MutationOptions) =>
      unwrap(api.POST('/orders/{externalOrderId}/cancel', { params: { path: { externalOrderId }, header: key(o) }, body })),
    result: (externalOrderId: string) => unwrap(api.GET('/orders/{externalOrderId}/result', { params: { path: { externalOrderId } } })),
    calls: (externalOrderId: string, query: ListQuery<'listOrderCalls'> = {}): List<'listOrderCalls'> =>
      walk((cursor) => callsPage(externalOrderId, { ...query, cursor })),
    callsPage,
  };
}

function salesRules(api: Api, key: Key) {
  const page = (query: Query<'listSalesRules'> = {}) => unwrap(api.GET('/sales-rules', { params: { query } }));
  return {
    put: (externalRuleId: string, body: RequestBody<'putSalesRule'>, o?: MutationOptions) =>
      unwrap(api.PUT('/sales-rules/{externalRuleId}', { params: { path: { externalRuleId }, header: key(o) }, body })),
    list: (query: ListQuery<'listSalesRules'> = {}): List<'listSalesRules'> => walk((cursor) => page({ ...query, cursor })),
    listPage: page,
    get: (externalRuleId: string) => unwrap(api.GET('/sales-rules/{externalRuleId}', { params: { path: { externalRuleId } } })),
    archive: (externalRuleId: string, o?: MutationOptions) =>
      unwrap(api.DELETE('/sales-rules/{externalRuleId}', { params: { path: { externalRuleId }, header: key(o) } })),
  };
}

function webhooks(api: Api, key: Key) {
  const page = (query: Query<'listWebhookDeliveries'> = {}) => unwrap(api.GET('/webhook-deliveries', { params: { query } }));
  return {
    getSubscription: () => unwrap(api.GET('/webhook-subscription')),
    putSubscription: (body: RequestBody<'putWebhookSubscription'>, o?: MutationOptions) =>
      unwrap(api.PUT('/webhook-subscription', { params: { header: key(o) }, body })),
    rotateSecret: (body: RequestBody<'rotateWebhookSecret'> = {}, o?: MutationOptions) =>
      unwrap(api.POST('/webhook-subscription/secret/rotate', { params: { header: key(o) }, body })),
    test: (o?: MutationOptions) => unwrap(api.POST('/webhook-subscription/test', { params: { header: key(o) } })),
    deliveries: (query: ListQuery<'listWebhookDeliveries'> = {}): List<'listWebhookDeliveries'> => walk((cursor) => page({ ...query, cursor })),
    deliveriesPage: page,
    /** One delivery with its attempt log (an extension of the contract). */
    getDelivery: (deliveryId: string) => unwrap(api.GET('/webhook-deliveries/{deliveryId}', { params: { path: { deliveryId } } })),
    /** Re-sends the dead-lettered deliveries created since `body.since`, a page at a time (`more`: call again). */
    recover: (body: RequestBody<'recoverWebhookDeliveries'>, o?: MutationOptions) =>
      unwrap(api.POST('/webhook-deliveries/recover', { params: { header: key(o) }, body })),
    replay: (deliveryId: string, o?: MutationOptions) =>
      unwrap(api.POST('/webhook-deliveries/{deliveryId}/replay', { params: { path: { deliveryId }, header: key(o) } })),
    /** Starts a listen session: the tenant's events in a feed, the subscription untouched (an extension of the contract). */
    listen: (body: RequestBody<'createListenSession'> = {}, o?: MutationOptions) =>
      unwrap(api.POST('/webhook-listen-sessions', { params: { header: key(o) }, body })),
    /** A listen session's feed after `after` (the previous `next_after`); each read renews the session. */
    listenFeed: (listenSessionId: string, query: Query<'readListenFeed'> = {}) =>
      unwrap(api.GET('/webhook-listen-sessions/{listenSessionId}/events', { params: { path: { listenSessionId }, query } })),
  };
}

/**
 * Every URL parser resolves a `.` or `..` path segment away, percent-encoded or not, so
 * `orders.result('..')` would read another resource. No id is `.` or `..` (the service refuses
 * them), so the client answers such a call as the service answers any id that names nothing.
 */
function pathOf(pathname: string, params: Record<string, unknown>): string {
  for (const [name, value] of Object.entries(params)) {
    if (value === '.' || value === '..') {
      throw new CommerceApiError({ status: 404, code: 'resource_not_found', message: `404 resource_not_found: no ${name} is "${value}"` });
    }
  }
  return defaultPathSerializer(pathname, params);
}

export function createCommerceClient(options: ClientOptions) {
  const api = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: signedFetch(options), pathSerializer: pathOf });
  const key: Key = (o) => ({ 'Idempotency-Key': o?.idempotencyKey ?? randomUUID() });
  return {
    /** The underlying typed openapi-fetch client (signed and retrying), for what the methods do not cover. */
    api,
    capabilities: { get: () => unwrap(api.GET('/capabilities')) },
    configuration: { getEffective: () => unwrap(api.GET('/configuration/effective')) },
    products: catalog(api, key),
    customers: customers(api, key),
    orders: orders(api, key),
    salesRules: salesRules(api, key),
    webhooks: webhooks(api, key),
  };
}

export type CommerceClient = ReturnType<typeof createCommerceClient>;
