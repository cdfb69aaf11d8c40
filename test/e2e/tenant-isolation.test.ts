/**
 * Tenant isolation on every route with a resource in its path, generated from the route
 * table: another tenant's resource answers exactly like a missing one, and a write never
 * reaches it. A new route with a new kind of resource fails here until it has a fixture.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, type Route } from '../../functions/routes.ts';
import { call, newTenant, samplePath, type TestKey } from '../support/stack.ts';
import { isFinalOrder, orderBody, waitForOrder } from '../support/orders.ts';

const ID = 'shared-id-1';

/** Per path parameter: how the owner creates the resource, and a valid write body. */
const FIXTURES: Record<string, { create: (key: TestKey) => Promise<unknown>; read: string; writeBody?: unknown }> = {
  externalProductId: {
    create: (key) =>
      call(key, 'POST', '/products/batch', {
        body: { products: [{ external_product_id: ID, title: 'Owned', source_version: '1', variants: [{ external_variant_id: 'v', price: '1.00', currency: 'EUR' }] }] },
      }),
    read: `/products/${ID}`,
  },
  externalCustomerId: {
    create: (key) => call(key, 'PUT', `/customers/${ID}`, { body: customerBody('+4915100000001') }),
    read: `/customers/${ID}`,
    writeBody: customerBody('+4915100000002'),
  },
  externalOrderId: {
    create: async (key) => {
      await call(key, 'POST', '/orders', { body: orderBody(ID, 'nobody') });
      await waitForOrder(key, ID, isFinalOrder);
    },
    read: `/orders/${ID}`,
    writeBody: { source_version: '9', priority: 1 },
  },
  externalRuleId: {
    create: (key) => call(key, 'PUT', `/sales-rules/${ID}`, { body: ruleBody(1) }),
    read: `/sales-rules/${ID}`,
    writeBody: ruleBody(99),
  },
};

function customerBody(phone: string) {
  return { phone, locale: 'de-DE', consent: { status: 'granted', proof: { source: 'checkout', reference: 'r', collected_at: '2026-01-01T00:00:00Z' } }, source_version: '1' };
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
beforeAll(async () => {
  owner = await newTenant();
  for (const fixture of Object.values(FIXTURES)) await fixture.create(owner);
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
    const before = await call(owner, 'GET', fixture!.read);
    expect(before.status).toBe(200);

    if (route.method === 'PUT') {
      // An upsert by another tenant lands in its own namespace; the owner's resource is untouched.
      expect((await call(intruder, 'PUT', samplePath(route.path, ID), { body: fixture!.writeBody })).status).toBe(200);
    } else {
      const body = route.method === 'PATCH' ? fixture!.writeBody : undefined;
      const foreign = await call(intruder, route.method, samplePath(route.path, ID), { body });
      const missing = await call(intruder, route.method, samplePath(route.path, 'never-existed'), { body });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('resource_not_found');
      const shape = (r: typeof foreign) => ({ ...r.body, detail: r.body.detail.replace(/never-existed|shared-id-1/g, '{id}'), instance: undefined, request_id: undefined });
      expect(shape(foreign)).toEqual(shape(missing));
    }
    const after = await call(owner, 'GET', fixture!.read);
    expect(after.body).toEqual(before.body);
  });
});
