import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { call, newTenant } from '../support/stack.ts';

const linesOf = (requestId: string) =>
  readFileSync(inject('logFile'), 'utf8')
    .split('\n')
    .filter((line) => line.includes(requestId))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('structured logs', () => {
  it('carry request id, tenant, route and correlation id, and never the secret, signature, phone number or body', async () => {
    const key = await newTenant();
    const body = { phone: '+4917000000077', locale: 'de-DE', consent: { status: 'withdrawn' }, source_version: '1' };
    const res = await call(key, 'PUT', '/customers/log-1', { body, headers: { 'X-Correlation-Id': 'partner-trace-42' } });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    const lines = linesOf(requestId);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines).toContainEqual(
      expect.objectContaining({ request_id: requestId, tenant: key.tenant, route: 'putCustomer', correlation_id: 'partner-trace-42', status: 200 }),
    );
    // The route's template, not the path: the partner's customer id is not in the line.
    expect(lines).toContainEqual(expect.objectContaining({ message: 'request completed', path: '/customers/{externalCustomerId}' }));
    const text = JSON.stringify(lines);
    for (const secretish of [key.secret, '17000000077', 'withdrawn', 'source_version', 'log-1']) expect(text).not.toContain(secretish);
    expect(text).not.toMatch(/signature/i);
  });
});
