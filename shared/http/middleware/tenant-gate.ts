/** A suspended tenant gets 503 with Retry-After; every key is held to its tenant's rate limit (429). */
import type { Principal } from '../../auth/authenticate.ts';
import { RateLimitedError, TenantUnavailableError } from '../../errors.ts';
import type { TenantConfig } from '../../tenants/config.ts';
import type { HttpMiddleware } from './types.ts';

export const TENANT_UNAVAILABLE_RETRY_AFTER_SECONDS = 300;

export interface TenantGatePorts {
  tenantConfigOf(tenant: string): Promise<TenantConfig>;
  /** Seconds to wait, or 0 when the request is admitted. */
  takeRateToken(principal: Principal, limit: TenantConfig['rate_limit'], at: Date): Promise<number>;
  now(): Date;
}

export function tenantGate(ports: TenantGatePorts): HttpMiddleware {
  return {
    before: async ({ context: { http } }) => {
      const principal = http.principal!;
      const tenant = await ports.tenantConfigOf(principal.tenant);
      if (tenant.status === 'suspended') throw new TenantUnavailableError(TENANT_UNAVAILABLE_RETRY_AFTER_SECONDS);
      const wait = await ports.takeRateToken(principal, tenant.rate_limit, ports.now());
      if (wait > 0) throw new RateLimitedError(wait);
    },
  };
}
