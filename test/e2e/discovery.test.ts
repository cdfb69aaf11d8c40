import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.ts';
import { call, newTenant } from '../support/stack.ts';

const openapi = JSON.parse(readFileSync(join(repoRoot, 'contract/openapi.json'), 'utf8'));

describe('GET /capabilities', () => {
  it('answers a signed request with the contract version of the OpenAPI document and the spec limits', async () => {
    const key = await newTenant();
    const res = await call(key, 'GET', '/capabilities');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/.+/);
    expect(res.body.contract_version).toBe(openapi.info.version);
    expect(res.body.contract_version).toMatch(/^\d{4}\.\d{2}\.\d{2}-draft\.\d+$/);
    expect(res.body).toMatchObject({
      base_path: '/api/v1/commerce',
      order_kinds: ['standard', 'repurchase_intent'],
      limits: { products_batch_max: 500, variants_per_product_max: 100, page_limit_default: 50, page_limit_max: 200 },
      features: { webhooks: true, repurchase_intents: true, writeback: 'partner_dependent' },
    });
    expect(res.body.events).toHaveLength(4);
  });

  it('reflects a tenant without repurchase intents', async () => {
    const key = await newTenant({ config: { features_enabled: { upsell: true, repurchase_intent: false } } });
    const res = await call(key, 'GET', '/capabilities');
    expect(res.body.order_kinds).toEqual(['standard']);
    expect(res.body.features.repurchase_intents).toBe(false);
  });
});

describe('GET /configuration/effective', () => {
  it('is not_ready while no market is configured, and names a missing webhook subscription as a notice (polling tenants need none)', async () => {
    const key = await newTenant({ config: {} });
    const res = await call(key, 'GET', '/configuration/effective');
    expect(res.status).toBe(200);
    expect(res.body.readiness).toBe('not_ready');
    expect(res.body.blockers.map((b: { code: string }) => b.code)).toEqual(['no_market_configured']);
    expect(res.body.notices.map((b: { code: string }) => b.code)).toEqual(['no_webhook_subscription']);
    for (const item of [...res.body.blockers, ...res.body.notices]) expect(item.message.length).toBeGreaterThan(10);
    expect(res.body.quiet_hours).toEqual({ timezone: 'Europe/Berlin', dont_call_hour_start: 21, dont_call_hour_end: 8 });
  });

  it('is ready once a market and an enabled webhook subscription exist, and never shows a secret', async () => {
    const key = await newTenant();
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { tableClient, tableName } = await import('#shared/storage/clients.ts');
    const { keys } = await import('#shared/storage/keys.ts');
    await tableClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.webhookSubscription(key.tenant), url: 'https://hooks.example.com/x', event_types: [], enabled: true, secret: 'whsec_do_not_show' },
      }),
    );
    const res = await call(key, 'GET', '/configuration/effective');
    expect(res.body).toMatchObject({ readiness: 'ready', blockers: [], notices: [], markets: [{ country: 'DE', calling_days: [1, 2, 3, 4, 5, 6, 7] }] });
    expect(res.text).not.toContain('whsec_do_not_show');
    expect(res.text).not.toContain(key.secret);
  });

  it('is ready for a tenant that only polls: a market and no webhook subscription', async () => {
    const key = await newTenant();
    const res = await call(key, 'GET', '/configuration/effective');
    expect(res.body).toMatchObject({ readiness: 'ready', blockers: [], notices: [{ code: 'no_webhook_subscription' }] });
  });

  it('shows the tenant mode and the store name its customers hear', async () => {
    const sandbox = await newTenant({ config: { markets: [], display_name: 'Kaffee Rösterei' } });
    expect((await call(sandbox, 'GET', '/configuration/effective')).body).toMatchObject({ mode: 'sandbox', display_name: 'Kaffee Rösterei' });
    expect((await call(await newTenant(), 'GET', '/configuration/effective')).body).toMatchObject({ mode: 'sandbox', display_name: null });
  });
});
