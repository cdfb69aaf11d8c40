/**
 * The Shopify write-back example against a local stand-in of the Admin GraphQL mutations it uses
 * (an HTTP server Shopify's own client is pointed at): a confirmed result tags and notes the
 * order, a modified one edits its lines to the snapshot's, a declined one is tagged; a write-back
 * whose signature fails never reaches Shopify, and one applied before is answered 409.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdminApiClient } from '@shopify/admin-api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeaders } from '#shared/outbound/signature.ts';
import { shopifyWriteBackHandler, type WriteBack } from '../../../examples/store-writeback/shopify.ts';

interface StandInOrder {
  tags: string[];
  note: string | null;
  lines: { id: string; variantId: string; quantity: number }[];
}

/** The mutations the example uses, on orders in memory; any other operation is a GraphQL error, so the example cannot drift unnoticed. */
function shopifyStandIn() {
  const orders = new Map<string, StandInOrder>();
  const calls: string[] = [];
  let lineIds = 100;
  const ok = (field: string, payload: object) => ({ data: { [field]: { ...payload, userErrors: [] } } });
  const handle = (query: string, v: Record<string, any>) => {
    const operation = /mutation (\w+)/.exec(query)?.[1] ?? 'unknown';
    calls.push(operation);
    const order = orders.get(String(v.id ?? v.input?.id ?? '').replace('CalculatedOrder', 'Order'));
    if (!order) return { errors: [{ message: `no order ${v.id ?? v.input?.id}` }] };
    switch (operation) {
      case 'TagsAdd':
        order.tags.push(...v.tags);
        return ok('tagsAdd', { node: { id: v.id } });
      case 'OrderUpdate':
        order.note = v.input.note;
        return ok('orderUpdate', { order: { id: v.input.id } });
      case 'OrderEditBegin':
        return ok('orderEditBegin', {
          calculatedOrder: {
            id: v.id.replace('Order', 'CalculatedOrder'),
            lineItems: { nodes: order.lines.map((l) => ({ id: l.id, quantity: l.quantity, variant: { id: l.variantId } })) },
          },
        });
      case 'OrderEditSetQuantity':
        order.lines.find((l) => l.id === v.lineItemId)!.quantity = v.quantity;
        return ok('orderEditSetQuantity', { calculatedOrder: { id: v.id } });
      case 'OrderEditAddVariant':
        order.lines.push({ id: `line-${lineIds++}`, variantId: v.variantId, quantity: v.quantity });
        return ok('orderEditAddVariant', { calculatedOrder: { id: v.id } });
      case 'OrderEditCommit':
        order.lines = order.lines.filter((l) => l.quantity > 0);
        return ok('orderEditCommit', { order: { id: v.id.replace('CalculatedOrder', 'Order') } });
      default:
        return { errors: [{ message: `the stand-in does not answer ${operation}` }] };
    }
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      expect(req.headers['x-shopify-access-token']).toBe('shpat_test');
      const { query, variables } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(handle(query, variables ?? {})));
    });
  });
  return { orders, calls, server };
}

const SECRET = 'whsec_dGVzdC13cml0ZWJhY2stc2VjcmV0LTI0Ynl0ZXM=';
const standIn = shopifyStandIn();
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve));
  const shopifyPort = (standIn.server.address() as AddressInfo).port;
  const shopify = createAdminApiClient({
    storeDomain: 'stand-in.myshopify.com',
    apiVersion: '2026-10',
    accessToken: 'shpat_test',
    // Shopify's client, its requests to the stand-in instead of the store.
    customFetchApi: (url, init) => fetch(String(url).replace('https://stand-in.myshopify.com', `http://127.0.0.1:${shopifyPort}`), init as RequestInit),
  });
  const handler = shopifyWriteBackHandler({ shopify, secrets: [SECRET] });
  receiver = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/writeback`;
});
afterAll(async () => {
  await new Promise((r) => receiver.close(r));
  await new Promise((r) => standIn.server.close(r));
});

/** Sends a write-back as the service does: signed as a webhook, the idempotency key as its event id. */
async function writeBack(result: WriteBack, key: string, secret = SECRET) {
  const body = JSON.stringify(result);
  const headers = { ...signatureHeaders({ current: secret }, key, body, new Date()), 'Idempotency-Key': key, 'Content-Type': 'application/json' };
  return (await fetch(receiverUrl, { method: 'POST', headers, body })).status;
}

const result = (id: string, outcome: WriteBack['business_outcome'], items: WriteBack['final_order_snapshot']['items']): WriteBack => ({
  external_order_id: id,
  business_outcome: outcome,
  final_order_snapshot: { items, currency: 'EUR', total: '0.00' },
  correlation_id: 'cor_1',
});

describe('the Shopify write-back example', () => {
  it('tags and notes a confirmed order, once for one key', async () => {
    standIn.orders.set('gid://shopify/Order/1001', {
      tags: [],
      note: null,
      lines: [{ id: 'line-1', variantId: 'gid://shopify/ProductVariant/11', quantity: 2 }],
    });
    const confirmed = result('1001', 'confirmed', [{ external_variant_id: '11', quantity: 2, price: '9.99' }]);
    expect(await writeBack(confirmed, 'wb_1')).toBe(200);
    expect(await writeBack(confirmed, 'wb_1')).toBe(409);
    expect(standIn.orders.get('gid://shopify/Order/1001')).toMatchObject({
      tags: ['phone-confirmed'],
      note: expect.stringContaining('confirmed the order on the phone'),
    });
  });

  it('edits a modified order to the snapshot: the replaced line removed, the suggested variant added', async () => {
    standIn.orders.set('gid://shopify/Order/1002', {
      tags: [],
      note: null,
      lines: [
        { id: 'line-2', variantId: 'gid://shopify/ProductVariant/11', quantity: 2 },
        { id: 'line-3', variantId: 'gid://shopify/ProductVariant/33', quantity: 1 },
      ],
    });
    const modified = result('1002', 'modified', [
      { external_variant_id: '22', quantity: 2, price: '24.50' },
      { external_variant_id: '33', quantity: 1, price: '5.00' },
    ]);
    expect(await writeBack(modified, 'wb_2')).toBe(200);
    const order = standIn.orders.get('gid://shopify/Order/1002')!;
    expect(order.lines.map((l) => [l.variantId, l.quantity]).sort()).toEqual([
      ['gid://shopify/ProductVariant/22', 2],
      ['gid://shopify/ProductVariant/33', 1],
    ]);
    expect(order.tags).toEqual(['phone-modified']);
  });

  it('tags a declined order and leaves cancelling to the merchant', async () => {
    standIn.orders.set('gid://shopify/Order/1003', { tags: [], note: null, lines: [] });
    expect(await writeBack(result('1003', 'declined', []), 'wb_3')).toBe(200);
    expect(standIn.orders.get('gid://shopify/Order/1003')!.tags).toEqual(['phone-declined']);
    expect(standIn.calls).not.toContain('OrderCancel');
  });

  it('refuses a write-back signed with another secret before Shopify hears of it, and answers 502 when Shopify fails (so it is tried again)', async () => {
    const before = standIn.calls.length;
    expect(await writeBack(result('1001', 'confirmed', []), 'wb_4', 'whsec_b3RoZXItc2VjcmV0LW9mLXR3ZW50eS1mb3VyIQ==')).toBe(401);
    expect(standIn.calls.length).toBe(before);
    expect(await writeBack(result('9999', 'confirmed', []), 'wb_5')).toBe(502);
  });
});
