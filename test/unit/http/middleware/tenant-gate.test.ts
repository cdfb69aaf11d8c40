import { describe, expect, it } from 'vitest';
import { type TenantGatePorts, tenantGate } from '#shared/http/middleware/tenant-gate.ts';
import { TenantConfigSchema } from '#shared/tenants/config.ts';
import { chain, withState } from './chain.ts';

const principal = { tenant: 'acme', keyId: 'key_a', scopes: [] };

function ports(status: 'active' | 'suspended', wait: number, calls: string[] = []): TenantGatePorts {
  return {
    tenantConfigOf: async (tenant) => {
      calls.push(`config:${tenant}`);
      return { ...TenantConfigSchema.parse({}), status };
    },
    takeRateToken: async (p, limit) => {
      calls.push(`token:${p.keyId}:${limit.burst}`);
      return wait;
    },
    now: () => new Date('2026-11-23T10:00:00Z'),
  };
}

const run = (gate: TenantGatePorts) => chain([withState({ principal }), tenantGate(gate)])();

describe('the tenant gate middleware', () => {
  it("admits a request of an active tenant within its rate, counting it against the key's window", async () => {
    const calls: string[] = [];
    await expect(run(ports('active', 0, calls))).resolves.toMatchObject({ statusCode: 200 });
    expect(calls).toEqual(['config:acme', `token:key_a:${TenantConfigSchema.parse({}).rate_limit.burst}`]);
  });

  it('answers a suspended tenant 503 with Retry-After 300, before counting the request', async () => {
    const calls: string[] = [];
    await expect(run(ports('suspended', 0, calls))).rejects.toMatchObject({ code: 'tenant_unavailable', retryAfterSeconds: 300 });
    expect(calls).toEqual(['config:acme']);
  });

  it('answers a request over the rate 429 with the seconds to wait', async () => {
    await expect(run(ports('active', 2))).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 2 });
  });
});
