/**
 * The route table: the only list of the service's HTTP routes (spec section 4, plus
 * `GET /orders` of contract-decisions section 5). The CDK app, the local gateway, the
 * OpenAPI generator and the tests all read it. Paths are relative to {@link BASE_PATH}.
 *
 * Pure data on purpose: every Lambda bundle imports it, so it must stay tiny.
 */
export const BASE_PATH = '/api/v1/commerce';

export const SCOPES = [
  'commerce:read',
  'configuration:read',
  'catalog:read',
  'catalog:write',
  'customers:read',
  'customers:write',
  'customers:erase',
  'orders:read',
  'orders:write',
  'results:read',
  'rules:read',
  'rules:write',
  'webhooks:read',
  'webhooks:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  /** Stable operation name: OpenAPI operationId, log field `route`, Lambda name suffix. */
  readonly operationId: string;
  readonly method: HttpMethod;
  /** API Gateway resource path, relative to BASE_PATH, with `{param}` placeholders. */
  readonly path: string;
  readonly scope: Scope;
  /** Handler module, relative to the repository root; it exports `handler` and `contract`. */
  readonly handler: string;
  readonly summary: string;
  /** DynamoDB actions the handler uses beyond the pipeline's own (least-privilege IAM). */
  readonly tableActions?: readonly ('Query' | 'BatchGetItem' | 'BatchWriteItem' | 'TransactWriteItems' | 'ConditionCheckItem')[];
  /** Queue actions the handler uses. */
  readonly queueActions?: readonly 'send'[];
  readonly tag: 'Discovery' | 'Catalog' | 'Customers' | 'Orders' | 'Results' | 'Sales rules' | 'Webhooks';
}

const route = (r: Route): Route => r;

export const ROUTES: readonly Route[] = [
  route({
    operationId: 'getCapabilities',
    method: 'GET',
    path: '/capabilities',
    scope: 'commerce:read',
    handler: 'functions/http/discovery/get-capabilities.ts',
    summary: 'Read the capabilities of this service',
    tag: 'Discovery',
  }),
  route({
    operationId: 'getEffectiveConfiguration',
    method: 'GET',
    path: '/configuration/effective',
    scope: 'configuration:read',
    handler: 'functions/http/discovery/get-effective-configuration.ts',
    summary: "Read the tenant's effective configuration and readiness",
    tag: 'Discovery',
  }),

  route({
    operationId: 'upsertProductsBatch',
    method: 'POST',
    path: '/products/batch',
    scope: 'catalog:write',
    handler: 'functions/http/products/upsert-batch.ts',
    summary: 'Upsert up to 500 products with their variants',
    tag: 'Catalog',
  }),
  route({
    operationId: 'listProducts',
    method: 'GET',
    path: '/products',
    scope: 'catalog:read',
    handler: 'functions/http/products/list.ts',
    tableActions: ['Query'],
    summary: 'List and search products',
    tag: 'Catalog',
  }),
  route({
    operationId: 'getProduct',
    method: 'GET',
    path: '/products/{externalProductId}',
    scope: 'catalog:read',
    handler: 'functions/http/products/get.ts',
    summary: 'Read one product with its variants',
    tag: 'Catalog',
  }),
  route({
    operationId: 'archiveProduct',
    method: 'DELETE',
    path: '/products/{externalProductId}',
    scope: 'catalog:write',
    handler: 'functions/http/products/archive.ts',
    tableActions: ['TransactWriteItems'],
    summary: 'Archive a product (tombstone, never a hard delete)',
    tag: 'Catalog',
  }),

  route({
    operationId: 'putCustomer',
    method: 'PUT',
    path: '/customers/{externalCustomerId}',
    scope: 'customers:write',
    handler: 'functions/http/customers/put.ts',
    summary: 'Upsert a customer with contact consent and its proof',
    tag: 'Customers',
  }),
  route({
    operationId: 'getCustomer',
    method: 'GET',
    path: '/customers/{externalCustomerId}',
    scope: 'customers:read',
    handler: 'functions/http/customers/get.ts',
    summary: 'Read the sanitized view of a customer',
    tag: 'Customers',
  }),
  route({
    operationId: 'anonymizeCustomer',
    method: 'POST',
    path: '/customers/{externalCustomerId}/anonymize',
    scope: 'customers:erase',
    handler: 'functions/http/customers/anonymize.ts',
    tableActions: ['TransactWriteItems'],
    summary: "Irreversibly erase a customer's personal data (GDPR)",
    tag: 'Customers',
  }),

  route({
    operationId: 'createOrder',
    method: 'POST',
    path: '/orders',
    scope: 'orders:write',
    handler: 'functions/http/orders/create.ts',
    tableActions: ['TransactWriteItems', 'Query', 'BatchGetItem'],
    summary: 'Submit (create or upsert) an order',
    tag: 'Orders',
  }),
  route({
    operationId: 'listOrders',
    method: 'GET',
    path: '/orders',
    scope: 'orders:read',
    handler: 'functions/http/orders/list.ts',
    tableActions: ['Query'],
    summary: 'List orders',
    tag: 'Orders',
  }),
  route({
    operationId: 'getOrder',
    method: 'GET',
    path: '/orders/{externalOrderId}',
    scope: 'orders:read',
    handler: 'functions/http/orders/get.ts',
    summary: 'Read an order with its processing state',
    tag: 'Orders',
  }),
  route({
    operationId: 'updateOrder',
    method: 'PATCH',
    path: '/orders/{externalOrderId}',
    scope: 'orders:write',
    handler: 'functions/http/orders/update.ts',
    tableActions: ['TransactWriteItems', 'Query', 'BatchGetItem'],
    summary: 'Update an order (versioned)',
    tag: 'Orders',
  }),
  route({
    operationId: 'cancelOrder',
    method: 'POST',
    path: '/orders/{externalOrderId}/cancel',
    scope: 'orders:write',
    handler: 'functions/http/orders/cancel.ts',
    tableActions: ['TransactWriteItems', 'Query', 'BatchGetItem'],
    summary: 'Cancel an order (compare-and-set safe)',
    tag: 'Orders',
  }),
  route({
    operationId: 'getOrderResult',
    method: 'GET',
    path: '/orders/{externalOrderId}/result',
    scope: 'results:read',
    handler: 'functions/http/results/get-result.ts',
    summary: "Read an order's result",
    tag: 'Results',
  }),
  route({
    operationId: 'listOrderCalls',
    method: 'GET',
    path: '/orders/{externalOrderId}/calls',
    scope: 'results:read',
    handler: 'functions/http/results/list-calls.ts',
    tableActions: ['Query'],
    summary: "List an order's call attempts and the reports policy",
    tag: 'Results',
  }),

  route({
    operationId: 'putSalesRule',
    method: 'PUT',
    path: '/sales-rules/{externalRuleId}',
    scope: 'rules:write',
    handler: 'functions/http/sales-rules/put.ts',
    summary: 'Upsert a sales rule',
    tag: 'Sales rules',
  }),
  route({
    operationId: 'listSalesRules',
    method: 'GET',
    path: '/sales-rules',
    scope: 'rules:read',
    handler: 'functions/http/sales-rules/list.ts',
    tableActions: ['Query'],
    summary: 'List sales rules',
    tag: 'Sales rules',
  }),
  route({
    operationId: 'getSalesRule',
    method: 'GET',
    path: '/sales-rules/{externalRuleId}',
    scope: 'rules:read',
    handler: 'functions/http/sales-rules/get.ts',
    summary: 'Read a sales rule',
    tag: 'Sales rules',
  }),
  route({
    operationId: 'archiveSalesRule',
    method: 'DELETE',
    path: '/sales-rules/{externalRuleId}',
    scope: 'rules:write',
    handler: 'functions/http/sales-rules/archive.ts',
    tableActions: ['TransactWriteItems'],
    summary: 'Archive a sales rule (tombstone)',
    tag: 'Sales rules',
  }),

  route({
    operationId: 'getWebhookSubscription',
    method: 'GET',
    path: '/webhook-subscription',
    scope: 'webhooks:read',
    handler: 'functions/http/webhooks/get-subscription.ts',
    tableActions: ['Query'],
    summary: 'Read the webhook subscription (URL masked, health, never the secret)',
    tag: 'Webhooks',
  }),
  route({
    operationId: 'putWebhookSubscription',
    method: 'PUT',
    path: '/webhook-subscription',
    scope: 'webhooks:write',
    handler: 'functions/http/webhooks/put-subscription.ts',
    tableActions: ['Query'],
    summary: 'Create or replace the webhook subscription',
    tag: 'Webhooks',
  }),
  route({
    operationId: 'rotateWebhookSecret',
    method: 'POST',
    path: '/webhook-subscription/secret/rotate',
    scope: 'webhooks:write',
    handler: 'functions/http/webhooks/rotate-secret.ts',
    summary: 'Rotate the webhook signing secret',
    tag: 'Webhooks',
  }),
  route({
    operationId: 'testWebhookSubscription',
    method: 'POST',
    path: '/webhook-subscription/test',
    scope: 'webhooks:write',
    handler: 'functions/http/webhooks/test-subscription.ts',
    summary: 'Send a test event through the delivery path',
    tag: 'Webhooks',
  }),
  route({
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/webhook-deliveries',
    scope: 'webhooks:read',
    handler: 'functions/http/webhooks/list-deliveries.ts',
    tableActions: ['Query'],
    summary: 'List webhook deliveries, newest first',
    tag: 'Webhooks',
  }),
  route({
    operationId: 'replayWebhookDelivery',
    method: 'POST',
    path: '/webhook-deliveries/{deliveryId}/replay',
    scope: 'webhooks:write',
    handler: 'functions/http/webhooks/replay-delivery.ts',
    queueActions: ['send'],
    summary: 'Replay a delivery of the same immutable event',
    tag: 'Webhooks',
  }),
];

export const isMutation = (method: HttpMethod): boolean => method !== 'GET';

export function routeById(operationId: string): Route {
  const found = ROUTES.find((r) => r.operationId === operationId);
  if (!found) throw new Error(`No route named ${operationId} in the route table`);
  return found;
}

/** Matches a concrete request path (relative to BASE_PATH) to its route's path template. */
export function pathPattern(path: string): RegExp {
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)');
  return new RegExp(`^${source}$`);
}
