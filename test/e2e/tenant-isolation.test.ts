/**
 * Tenant isolation on every route with a resource in its path, generated from the route
 * table: another tenant's resource answers exactly like a missing one, and a write never
 * reaches it. A new route with a new kind of resource fails here until it has a fixture.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.ts';
import type { Route } from '#shared/api/routes.ts';
import { eventually } from '../support/eventually.ts';
import { isFinalOrder, orderBody, waitForOrder } from '../support/orders.ts';
import { startReceiver } from '../support/receiver.ts';
import { call, newTenant, samplePath, type TestKey } from '../support/stack.ts';

const ID = 'shared-id-1';

/**
 * Per path parameter: how the owner creates the resource (answering its id when the service
 * chooses it), how the owner reads it, a valid write body, and a well-formed id that does not exist.
 */
interface Fixture {
  create: (key: TestKey) => Promise<string | undefined>;
  read: (id: string) => string;
  writeBody?: unknown;
  missing?: string;
}
const FIXTURES: Record<string, Fixture> = {
  externalProductId: {
    create: async (key) => {
      await call(key, 'POST', '/products/batch', {
        body: {
          products: [
            { external_product_id: ID, title: 'Owned', source_version: '1', variants: [{ external_variant_id: 'v', price: '1.00', currency: 'EUR' }] },
          ],
        },
      });
    },
    read: (id) => `/products/${id}`,
  },
  externalCustomerId: {
    create: async (key) => {
      await call(key, 'PUT', `/customers/${ID}`, { body: customerBody('+4915100000001') });
    },
    read: (id) => `/customers/${id}`,
    writeBody: customerBody('+4915100000002'),
  },
  externalOrderId: {
    create: async (key) => {
      await call(key, 'POST', '/orders', { body: orderBody(ID, 'nobody') });
      await waitForOrder(key, ID, isFinalOrder);
    },
    read: (id) => `/orders/${id}`,
    writeBody: { source_version: '9', priority: 1 },
  },
  deliveryId: {
    // Delivered before the test reads it, so the owner's view is stable.
    create: async (key) => {
      receiver = await startReceiver(() => 'ok');
      await call(key, 'PUT', '/webhook-subscription', { body: { url: receiver.url, event_types: ['commerce.order.status_changed.v1'] } });
      const id = (await call(key, 'POST', '/webhook-subscription/test')).body.delivery_id as string;
      const delivered = await eventually(
        () => call(key, 'GET', '/webhook-deliveries', { query: { status: 'delivered' } }),
        (res) => res.body.data.length >= 1,
        { timeoutMs: 20_000, everyMs: 100 },
      );
      if (delivered.body.data.length < 1) throw new Error('the fixture delivery was not delivered');
      return id;
    },
    read: () => '/webhook-deliveries',
    missing: 'dlv_neverexisted',
  },
  listenSessionId: {
    create: async (key) => (await call(key, 'POST', '/webhook-listen-sessions', { body: {} })).body.listen_session_id as string,
    read: () => '/webhook-deliveries',
    missing: 'lsn_00000000000000000000000000000000',
  },
  externalRuleId: {
    create: async (key) => {
      await call(key, 'PUT', `/sales-rules/${ID}`, { body: ruleBody(1) });
    },
    read: (id) => `/sales-rules/${id}`,
    writeBody: ruleBody(99),
  },
};

function customerBody(phone: string) {
  return {
    phone,
    locale: 'de-DE',
    consent: { status: 'granted', proof: { source: 'checkout', reference: 'r', collected_at: '2026-01-01T00:00:00Z' } },
    source_version: '1',
  };
}
function ruleBody(priority: number) {
  return { rule_type: 'upsell', priority, applies_to: { category: 'a' }, action: { suggest_variant: 'b' }, source_version: '1' };
}

const parameterOf = (route: Route) => /\{(\w+)\}/.exec(route.path)?.[1];
const implemented = async (route: Route) => {
  const { contract } = (await import(/* @vite-ignore */ `../../${route.handler}`)) as { contract: { problems?: readonly string[] } };
  return !contract.problems?.includes('not_implemented');
};

let owner: TestKey;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterAll(() => receiver?.close());
const ids: Record<string, string> = {};
beforeAll(async () => {
  owner = await newTenant();
  for (const [param, fixture] of Object.entries(FIXTURES)) ids[param] = (await fixture.create(owner)) ?? ID;
});

describe.each(ROUTES.filter(parameterOf).map((r) => [`${r.method} ${r.path}`, r] as const))('%s', (_, route) => {
  it("treats another tenant's resource exactly like a missing one", async () => {
    const param = parameterOf(route)!;
    const intruder = await newTenant();
    if (!(await implemented(route))) {
      // Not built yet: it reads and writes nothing, so it cannot leak; once built, it needs a fixture.
      expect((await call(intruder, route.method, samplePath(route.path, ID), { body: route.method === 'GET' ? undefined : {} })).status).toBe(501);
      return;
    }
    const fixture = FIXTURES[param];
    expect(fixture, `a fixture for {${param}} in FIXTURES`).toBeDefined();
    const id = ids[param]!;
    const missingId = fixture!.missing ?? 'never-existed';
    const before = await call(owner, 'GET', fixture!.read(id));
    expect(before.status).toBe(200);

    if (route.method === 'PUT') {
      // An upsert by another tenant lands in its own namespace; the owner's resource is untouched.
      expect((await call(intruder, 'PUT', samplePath(route.path, id), { body: fixture!.writeBody })).status).toBe(200);
    } else {
      const body = route.method === 'PATCH' ? fixture!.writeBody : undefined;
      const foreign = await call(intruder, route.method, samplePath(route.path, id), { body });
      const missing = await call(intruder, route.method, samplePath(route.path, missingId), { body });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('resource_not_found');
      const shape = (r: typeof foreign) => ({
        ...r.body,
        detail: r.body.detail.replaceAll(id, '{id}').replaceAll(missingId, '{id}'),
        instance: undefined,
        request_id: undefined,
      });
      expect(shape(foreign)).toEqual(shape(missing));
    }
    const after = await call(owner, 'GET', fixture!.read(id));
    expect(after.body).toEqual(before.body);
  });
});
