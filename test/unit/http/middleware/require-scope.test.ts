import { describe, expect, it } from 'vitest';
import { requireScope } from '#shared/http/middleware/require-scope.ts';
import { chain, withState } from './chain.ts';

const principal = { tenant: 'acme', keyId: 'key_a', scopes: ['orders:read'] as const };

describe('the scope middleware', () => {
  it('lets a key holding the route scope through and refuses any other with 403 naming the scope', async () => {
    await expect(
      chain([withState({ principal: { ...principal, scopes: [...principal.scopes] } }), requireScope({ scope: 'orders:read' })])(),
    ).resolves.toMatchObject({
      statusCode: 200,
    });
    await expect(
      chain([withState({ principal: { ...principal, scopes: [...principal.scopes] } }), requireScope({ scope: 'orders:write' })])(),
    ).rejects.toMatchObject({
      code: 'insufficient_scope',
      requiredScope: 'orders:write',
    });
  });
});
