/**
 * A write-back receiver for a Shopify store: verifies each write-back with the client's
 * `verifyWebhook` (the signature and its timestamp), answers 409 to a key it has applied before,
 * and applies the result to the Shopify order through the Admin GraphQL API, with Shopify's own
 * client library:
 * - `confirmed`: the order gets the tag `phone-confirmed` and a note saying so;
 * - `modified` (the customer took a suggestion on the phone): the order is edited to the final
 *   snapshot's lines with the order-editing mutations (begin, set quantities, add variants,
 *   commit), then tagged `phone-modified`;
 * - `declined`: the order is tagged `phone-declined` and noted; cancelling (and refunding) stays
 *   the merchant's decision in their admin, since it moves money.
 *
 * It assumes the ids you send the service are Shopify's own numeric ids: an order's
 * `external_order_id` is its `legacyResourceId`, a line's `external_variant_id` its variant's.
 * Applied keys are kept in memory here; a real receiver keeps them where its orders are.
 *
 *   SHOPIFY_STORE=your-shop.myshopify.com SHOPIFY_ACCESS_TOKEN=shpat_… WRITEBACK_SECRET=whsec_… \
 *     node examples/store-writeback/shopify.ts          (PORT, default 4100)
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { verifyWebhook } from '@commerce-interface/client';
import { type AdminApiClient, createAdminApiClient } from '@shopify/admin-api-client';

export interface WriteBack {
  external_order_id: string;
  business_outcome: 'confirmed' | 'modified' | 'declined';
  final_order_snapshot: { items: { external_variant_id: string; quantity: number; price: string }[]; currency: string; total: string };
  correlation_id: string;
}

const orderGid = (id: string) => `gid://shopify/Order/${id}`;
const variantGid = (id: string) => `gid://shopify/ProductVariant/${id}`;

/** Runs one operation; Shopify's user errors and GraphQL errors become one thrown error. */
async function run(shopify: AdminApiClient, operation: string, variables: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { data, errors } = await shopify.request(operation, { variables });
  if (errors) throw new Error(`Shopify: ${errors.message ?? JSON.stringify(errors.graphQLErrors)}`);
  const payload = Object.values(data ?? {})[0] as { userErrors?: { message: string }[] } | undefined;
  if (payload?.userErrors?.length) throw new Error(`Shopify: ${payload.userErrors.map((e) => e.message).join('; ')}`);
  return payload as Record<string, unknown>;
}

const TAGS_ADD = `mutation TagsAdd($id: ID!, $tags: [String!]!) { tagsAdd(id: $id, tags: $tags) { node { id } userErrors { field message } } }`;
const ORDER_UPDATE = `mutation OrderUpdate($input: OrderInput!) { orderUpdate(input: $input) { order { id } userErrors { field message } } }`;
const EDIT_BEGIN = `mutation OrderEditBegin($id: ID!) { orderEditBegin(id: $id) {
  calculatedOrder { id lineItems(first: 250) { nodes { id quantity variant { id } } } } userErrors { field message } } }`;
const EDIT_SET_QUANTITY = `mutation OrderEditSetQuantity($id: ID!, $lineItemId: ID!, $quantity: Int!) {
  orderEditSetQuantity(id: $id, lineItemId: $lineItemId, quantity: $quantity) { calculatedOrder { id } userErrors { field message } } }`;
const EDIT_ADD_VARIANT = `mutation OrderEditAddVariant($id: ID!, $variantId: ID!, $quantity: Int!) {
  orderEditAddVariant(id: $id, variantId: $variantId, quantity: $quantity) { calculatedOrder { id } userErrors { field message } } }`;
const EDIT_COMMIT = `mutation OrderEditCommit($id: ID!, $staffNote: String) {
  orderEditCommit(id: $id, notifyCustomer: true, staffNote: $staffNote) { order { id } userErrors { field message } } }`;

/** Edits the order's lines to the snapshot's: quantities set (0 removes a line), variants the order lacks added. */
async function editToSnapshot(shopify: AdminApiClient, result: WriteBack): Promise<void> {
  const begun = await run(shopify, EDIT_BEGIN, { id: orderGid(result.external_order_id) });
  const calculated = begun.calculatedOrder as { id: string; lineItems: { nodes: { id: string; quantity: number; variant: { id: string } | null }[] } };
  const wanted = new Map(result.final_order_snapshot.items.map((i) => [variantGid(i.external_variant_id), i.quantity]));
  for (const line of calculated.lineItems.nodes) {
    const quantity = line.variant ? (wanted.get(line.variant.id) ?? 0) : line.quantity;
    if (line.variant) wanted.delete(line.variant.id);
    if (quantity !== line.quantity) await run(shopify, EDIT_SET_QUANTITY, { id: calculated.id, lineItemId: line.id, quantity });
  }
  for (const [variantId, quantity] of wanted) await run(shopify, EDIT_ADD_VARIANT, { id: calculated.id, variantId, quantity });
  await run(shopify, EDIT_COMMIT, { id: calculated.id, staffNote: `Changed on the phone with the customer (${result.correlation_id})` });
}

/** Applies one write-back to the Shopify order. */
export async function applyToShopify(shopify: AdminApiClient, result: WriteBack): Promise<void> {
  const id = orderGid(result.external_order_id);
  if (result.business_outcome === 'modified') await editToSnapshot(shopify, result);
  await run(shopify, TAGS_ADD, { id, tags: [`phone-${result.business_outcome}`] });
  const note = `Customer ${result.business_outcome} the order on the phone; total ${result.final_order_snapshot.total} ${result.final_order_snapshot.currency} (${result.correlation_id})`;
  await run(shopify, ORDER_UPDATE, { input: { id, note } });
}

const readBody = (request: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

/**
 * The receiver's request handler: 401 for a write-back whose signature does not verify, 409 for
 * a key applied before, 200 once applied; 502 when Shopify failed, so the service tries again.
 */
export function shopifyWriteBackHandler(options: { shopify: AdminApiClient; secrets: readonly string[]; applied?: Set<string> }) {
  const applied = options.applied ?? new Set<string>();
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const body = await readBody(request);
    const verification = verifyWebhook(request.headers, body, options.secrets);
    if (!verification.valid) return void response.writeHead(401).end();
    const key = String(request.headers['idempotency-key'] ?? '');
    if (applied.has(key)) return void response.writeHead(409).end();
    try {
      await applyToShopify(options.shopify, JSON.parse(body.toString('utf8')) as WriteBack);
    } catch (error) {
      response.writeHead(502, { 'Content-Type': 'text/plain' }).end((error as Error).message.slice(0, 200));
      return;
    }
    applied.add(key);
    response.writeHead(200).end();
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const shopify = createAdminApiClient({
    storeDomain: process.env.SHOPIFY_STORE ?? '',
    apiVersion: process.env.SHOPIFY_API_VERSION ?? '2026-10',
    accessToken: process.env.SHOPIFY_ACCESS_TOKEN ?? '',
  });
  const secrets = (process.env.WRITEBACK_SECRET ?? '').split(',').filter(Boolean);
  const handler = shopifyWriteBackHandler({ shopify, secrets });
  const port = Number(process.env.PORT ?? 4100);
  createServer((req, res) => void handler(req, res)).listen(port, () => console.log(`write-back receiver for Shopify on :${port}`));
}
