import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { scanByKeyPrefix } from '../support/scan.ts';
import { call, newTenant } from '../support/stack.ts';

const PHONE = '+4915112345612';
const customer = (extra: Record<string, unknown> = {}) => ({
  phone: PHONE,
  locale: 'de-DE',
  consent: { status: 'granted', proof: { source: 'checkout', reference: 'proof-ref-778899', collected_at: '2026-11-01T10:00:00Z' } },
  source_version: '1',
  ...extra,
});

const scanTenant = async (tenant: string): Promise<string> => JSON.stringify(await scanByKeyPrefix(`T#${tenant}#`));

describe('customers', () => {
  it('upserts, then shows only the sanitized view: masked phone, consent status and proof source, never the number or the reference', async () => {
    const key = await newTenant();
    const put = await call(key, 'PUT', '/customers/c-1', { body: customer() });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ external_customer_id: 'c-1', outcome: 'upserted', consent: { status: 'granted' } });
    expect((await call(key, 'PUT', '/customers/c-1', { body: customer() })).body.outcome).toBe('unchanged');
    const got = await call(key, 'GET', '/customers/c-1');
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      external_customer_id: 'c-1',
      phone_masked: '+49******12',
      locale: 'de-DE',
      consent: { status: 'granted', proof: { source: 'checkout', collected_at: '2026-11-01T10:00:00.000Z' } },
      anonymized_at: null,
    });
    expect(got.text).not.toContain('15112345612');
    expect(got.text).not.toContain('proof-ref-778899');
  });

  it('answers 422 with pointers for a bad number, locale, missing proof and a proof collected in the future', async () => {
    const key = await newTenant();
    const bad = await call(key, 'PUT', '/customers/c-2', {
      body: customer({ phone: '0151 123', locale: 'not a locale!', consent: { status: 'granted' } }),
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/consent/proof', '/locale', '/phone']);
    const future = await call(key, 'PUT', '/customers/c-2', {
      body: customer({ consent: { status: 'granted', proof: { source: 'x', reference: 'y', collected_at: '2999-01-01T00:00:00Z' } } }),
    });
    expect(future.status).toBe(422);
    expect(future.body.errors).toEqual([{ pointer: '/consent/proof/collected_at', message: 'must not be in the future' }]);
    expect((await call(key, 'GET', '/customers/c-2')).status).toBe(404);
    const stale = await call(key, 'PUT', '/customers/c-3', { body: customer({ source_version: '2' }) });
    expect(stale.status).toBe(200);
    const older = await call(key, 'PUT', '/customers/c-3', { body: customer({ source_version: '1' }) });
    expect(older.status).toBe(409);
    expect(older.body).toMatchObject({ code: 'stale_source_version', current_source_version: '2' });
  });

  it('anonymize erases the phone everywhere: no API response, table item or log line holds it, an audit record remains, and it is idempotent', async () => {
    const key = await newTenant();
    await call(key, 'PUT', '/customers/gdpr-1', { body: customer() });
    const first = await call(key, 'POST', '/customers/gdpr-1/anonymize');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ external_customer_id: 'gdpr-1', outcome: 'anonymized', anonymized_at: expect.any(String) });
    const again = await call(key, 'POST', '/customers/gdpr-1/anonymize');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBeNull();

    const view = await call(key, 'GET', '/customers/gdpr-1');
    expect(view.body).toMatchObject({
      phone_masked: null,
      anonymized_at: first.body.anonymized_at,
      consent: { status: 'granted', proof: { source: 'checkout' } },
    });
    const restore = await call(key, 'PUT', '/customers/gdpr-1', { body: customer({ source_version: '2' }) });
    expect(restore.status).toBe(409);
    expect(restore.body.code).toBe('invalid_state_transition');

    const stored = await scanTenant(key.tenant);
    expect(stored).not.toContain('15112345612');
    expect(stored).not.toContain('proof-ref-778899');
    expect(stored).toContain('"action":"customer.anonymized"');
    expect(stored).toContain(`"key_id":"${key.keyId}"`);
    for (const text of [first.text, again.text, view.text, restore.text]) expect(text).not.toContain('15112345612');
    const logs = readFileSync(inject('logFile'), 'utf8');
    expect(logs).toContain(key.tenant);
    expect(logs).not.toContain('15112345612');
    expect((await call(key, 'POST', '/customers/nobody/anonymize')).status).toBe(404);
  });

  it('erases every stored shape of customer: withdrawn without a proof, withdrawn with one, granted with one', async () => {
    const key = await newTenant();
    const shapes = {
      'c-withdrawn': customer({ consent: { status: 'withdrawn' } }),
      'c-withdrawn-proof': customer({ consent: { status: 'withdrawn', proof: { source: 'call', reference: 'ref-1', collected_at: '2026-11-01T10:00:00Z' } } }),
      'c-granted': customer(),
    };
    for (const [id, body] of Object.entries(shapes)) {
      const put = await call(key, 'PUT', `/customers/${id}`, { body });
      expect(put.status, `${id}: ${put.text}`).toBe(200);
      const erased = await call(key, 'POST', `/customers/${id}/anonymize`);
      expect(erased.status, `${id}: ${erased.text}`).toBe(200);
      expect((await call(key, 'POST', `/customers/${id}/anonymize`)).body.anonymized_at).toBe(erased.body.anonymized_at);
    }
    const stored = await scanTenant(key.tenant);
    expect(stored).not.toContain(PHONE);
    expect(stored).not.toContain('ref-1');
    expect(stored).not.toContain('proof-ref-778899');
  });
});
