/** Which store a tenant's results go to: its own endpoint, else the sandbox store (sandbox tenants), else a visible failure. */
import { describe, expect, it } from 'vitest';
import { TenantConfigSchema } from '#shared/tenants/config.ts';
import { tenantStore } from '#shared/writeback/store-endpoint.ts';
import { StoreRejected, type WriteBackRequest } from '#shared/writeback/writeback.ts';

const request: WriteBackRequest = {
  tenant: 'acme',
  external_order_id: 'o-1',
  business_outcome: 'confirmed',
  snapshot: { items: [], currency: 'EUR', total: '0.00', confirmed: true, reason: null },
  correlation_id: 'cor_1',
  idempotency_key: 'wb_1',
};

function store(config: object, secret: string | undefined) {
  const posted: string[] = [];
  const parsed = TenantConfigSchema.parse(config);
  const endpoint = tenantStore({
    secretsOf: async () => (secret ? { current: secret } : undefined),
    post: async (_settings, url) => void posted.push(url),
    settings: { allowPrivateUrls: false, timeoutScale: 1, resolve: async () => [] },
  });
  const target = { mode: parsed.mode, url: parsed.writeback.url };
  return { posted, store: { writeBack: (request: WriteBackRequest) => endpoint.writeBack(request, target) } };
}

describe("a tenant's write-back store", () => {
  it('is its own endpoint where one is configured, sandbox tenants included', async () => {
    const own = store({ writeback: { enabled: true, url: 'https://store.example.com/r' } }, 'whsec_x');
    await own.store.writeBack(request);
    expect(own.posted).toEqual(['https://store.example.com/r']);
  });

  it('is the sandbox store for a sandbox tenant without one (scenario 8 refused), and a refusal for a live tenant without one', async () => {
    const sandbox = store({ writeback: { enabled: true } }, undefined);
    await expect(sandbox.store.writeBack(request)).resolves.toBeUndefined();
    await expect(sandbox.store.writeBack({ ...request, scenario: '8' })).rejects.toBeInstanceOf(StoreRejected);
    const live = store({ mode: 'live', writeback: { enabled: true } }, undefined);
    await expect(live.store.writeBack(request)).rejects.toThrow('no_endpoint');
  });

  it('refuses to send without a signing secret rather than send unsigned', async () => {
    const unsigned = store({ writeback: { enabled: true, url: 'https://store.example.com/r' } }, undefined);
    await expect(unsigned.store.writeBack(request)).rejects.toThrow('no_secret');
    expect(unsigned.posted).toEqual([]);
  });
});
