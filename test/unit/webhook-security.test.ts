import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isPublicAddress, resolvePublicAddress, type Resolver } from '#shared/webhooks/ssrf.ts';
import { signatureHeaders, verifyWebhook, webhookSignature } from '#shared/webhooks/signature.ts';

const stub =
  (answers: Record<string, string[]>): Resolver =>
  async (host) =>
    (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('SSRF protection', () => {
  it.each([
    ['http://hooks.example.com/x', 'https'],
    ['https://127.0.0.1/x', 'public address'],
    ['https://10.0.0.1/x', 'public address'],
    ['https://[::1]/x', 'public address'],
    ['https://[::ffff:10.0.0.1]/x', 'public address'],
    ['https://[::ffff:a00:1]/x', 'public address'],
    ['https://169.254.169.254/latest/meta-data', 'public address'],
    ['https://100.64.0.1/x', 'public address'],
    ['https://[fd00::1]/x', 'public address'],
    ['https://[fe80::1]/x', 'public address'],
    ['https://user:pw@hooks.example.com/x', 'user information'],
    ['https://localhost/x', 'public host name'],
    ['not a url', 'absolute URL'],
  ])('refuses %s when it is saved', (url, reason) => {
    const result = checkWebhookUrl(url, false);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(reason);
  });

  it('refuses a host name that resolves to a private address, or to any private one among several', async () => {
    const resolver = stub({ 'evil.example.com': ['93.184.216.34', '10.1.2.3'], 'inside.example.com': ['192.168.1.10'], 'ok.example.com': ['93.184.216.34'] });
    for (const host of ['evil.example.com', 'inside.example.com']) {
      const result = await resolvePublicAddress(new URL(`https://${host}/hook`), resolver, false);
      expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('non-public') });
    }
    await expect(resolvePublicAddress(new URL('https://ok.example.com/hook'), resolver, false)).resolves.toEqual({
      ok: true,
      address: '93.184.216.34',
      family: 4,
    });
    await expect(resolvePublicAddress(new URL('https://nowhere.example.com/hook'), resolver, false)).resolves.toMatchObject({ ok: false });
  });

  it('accepts public https URLs and tells public from private addresses', () => {
    expect(checkWebhookUrl('https://hooks.example.com/commerce?x=1', false).ok).toBe(true);
    expect(['93.184.216.34', '8.8.8.8', '2606:4700::1111'].every(isPublicAddress)).toBe(true);
    expect(['127.0.0.1', '0.0.0.0', '172.16.5.4', '::', '::ffff:127.0.0.1', '64:ff9b::a00:1', '224.0.0.1'].some(isPublicAddress)).toBe(false);
  });

  it('lets only the local runtime use plain http and loopback receivers', () => {
    expect(checkWebhookUrl('http://127.0.0.1:9999/hook', true).ok).toBe(true);
    expect(checkWebhookUrl('https://user:pw@127.0.0.1/hook', true).ok).toBe(false);
  });
});

describe('verifyWebhook', () => {
  const body = '{"event_id":"evt_1","data":{}}';
  const now = new Date('2026-11-22T12:00:00Z');

  it('verifies the signature over timestamp, event id and the raw body, in constant time', () => {
    const headers = signatureHeaders({ current: 'whsec_new' }, 'evt_1', body, now);
    expect(verifyWebhook(headers, body, ['whsec_new'], { now })).toEqual({ valid: true, eventId: 'evt_1' });
    expect(verifyWebhook(headers, `${body} `, ['whsec_new'], { now })).toEqual({ valid: false, reason: 'bad_signature' });
    expect(verifyWebhook(headers, body, ['whsec_other'], { now })).toEqual({ valid: false, reason: 'bad_signature' });
    expect(headers['X-SVC-Webhook-Signature']).toBe(webhookSignature('whsec_new', String(now.getTime() / 1000), 'evt_1', body));
  });

  it('during a rotation overlap, a receiver holding either secret verifies the delivery', () => {
    const headers = signatureHeaders({ current: 'whsec_new', previous: 'whsec_old' }, 'evt_1', body, now);
    expect(verifyWebhook(headers, body, ['whsec_old'], { now }).valid).toBe(true);
    expect(verifyWebhook(headers, body, ['whsec_new'], { now }).valid).toBe(true);
    const after = signatureHeaders({ current: 'whsec_new' }, 'evt_1', body, now);
    expect(verifyWebhook(after, body, ['whsec_old'], { now }).valid).toBe(false);
  });

  it('rejects stale or future timestamps beyond the tolerance, and missing headers', () => {
    const headers = signatureHeaders({ current: 's' }, 'evt_1', body, now);
    expect(verifyWebhook(headers, body, ['s'], { now: new Date(now.getTime() + 301_000) })).toEqual({ valid: false, reason: 'stale_timestamp' });
    expect(verifyWebhook(headers, body, ['s'], { now: new Date(now.getTime() - 301_000) })).toEqual({ valid: false, reason: 'stale_timestamp' });
    expect(verifyWebhook(headers, body, ['s'], { now: new Date(now.getTime() + 3_000_000), toleranceSeconds: 3600 }).valid).toBe(true);
    expect(verifyWebhook({}, body, ['s'], { now })).toEqual({ valid: false, reason: 'missing_headers' });
  });
});
