import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isPublicAddress, type Resolver, resolvePublicAddress } from '#shared/outbound/address-checks.ts';
import { signatureHeaders, verifyWebhook, webhookSignature } from '#shared/outbound/signature.ts';
import { newWebhookSecret } from '#shared/webhooks/subscription-store.ts';
import { repoRoot } from '../support/paths.ts';

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
    ['https://localhost./x', 'public host name'],
    ['https://metadata.google.internal./x', 'public host name'],
    ['https://intranet./x', 'public host name'],
    ['https://LOCALHOST./x', 'public host name'],
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
      expect(result).toMatchObject({ ok: false, reason: `${host} does not resolve to a public address`, unresolved: false });
    }
    // A name the service's network knows privately and one nobody knows read the same to the caller.
    const unknown = await resolvePublicAddress(new URL('https://nowhere.example.com/hook'), resolver, false);
    expect(unknown).toMatchObject({ ok: false, reason: 'nowhere.example.com does not resolve to a public address', unresolved: true });
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

  it.each([
    ['::102:304', 'IPv4-compatible ::/96'],
    ['2002:c000:204::1', '6to4 2002::/16'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo 2001::/32'],
    ['64:ff9b:1::a00:1', 'local-use NAT64 64:ff9b:1::/48'],
    ['fec0::1', 'site-local fec0::/10'],
    ['192.88.99.1', '6to4 relay anycast 192.88.99.0/24'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['255.255.255.255', 'broadcast'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'discard'],
  ])('refuses %s (%s) as a webhook address', (address) => {
    expect(isPublicAddress(address)).toBe(false);
    const host = address.includes(':') ? `[${address}]` : address;
    expect(checkWebhookUrl(`https://${host}/hook`, false).ok).toBe(false);
    expect(checkWebhookUrl(`https://${host}/hook`, true).ok).toBe(false);
  });

  it('keeps refusing link-local and metadata addresses when private receivers are allowed', () => {
    for (const address of ['169.254.169.254', '169.254.1.1', '[fe80::1]', '[fd00:ec2::254]', '[::ffff:169.254.169.254]', '0.0.0.0']) {
      expect(checkWebhookUrl(`http://${address}/latest/meta-data`, true).ok, address).toBe(false);
    }
    for (const address of ['127.0.0.1', '10.1.2.3', '192.168.0.10', '[::1]', '[fd12::1]'])
      expect(checkWebhookUrl(`http://${address}:8080/hook`, true).ok, address).toBe(true);
  });

  it('delivers to port 443 only, unless the local switch is on', () => {
    expect(checkWebhookUrl('https://hooks.example.com:443/x', false).ok).toBe(true);
    expect(checkWebhookUrl('https://hooks.example.com:8443/x', false)).toMatchObject({ ok: false, reason: 'must use port 443' });
    expect(checkWebhookUrl('https://hooks.example.com:22/x', false).ok).toBe(false);
  });

  it('refuses a URL only with a message the published contract lists for it', () => {
    const contract = JSON.parse(readFileSync(join(repoRoot, 'contract/openapi.json'), 'utf8'));
    const documented: string = contract.components.schemas.WebhookSubscriptionInput.properties.url.description;
    expect(documented).toContain('port 443');
    const refused = ['not a url', 'http://h.example.com/', 'https://u:p@h.example.com/', 'https://h.example.com/#f', 'https://h.example.com:8443/'];
    refused.push('https:///x', 'https://10.0.0.1/', 'https://localhost/', 'https://intranet/');
    const reasons = refused.map((url) => checkWebhookUrl(url, false)).map((check) => (check.ok ? 'accepted' : check.reason));
    for (const reason of reasons) expect(documented).toContain(`\`${reason}\``);
  });

  it('gives up on a resolver that does not answer in time', async () => {
    const silent: Resolver = () => new Promise(() => undefined);
    const started = Date.now();
    await expect(resolvePublicAddress(new URL('https://slow.example.com/hook'), silent, false)).resolves.toMatchObject({
      ok: false,
      reason: 'slow.example.com does not resolve to a public address',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
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

  it('signs as Standard Webhooks too: its library verifies with the same secret, either secret during a rotation', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const signedNow = new Date();
    const headers = signatureHeaders({ current, previous }, 'evt_1', body, signedNow);
    // The library reads lower-case header names, as Node's http module hands them over.
    const received = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    for (const secret of [current, previous]) expect(new StandardWebhook(secret).verify(body, received)).toEqual(JSON.parse(body));
    expect(() => new StandardWebhook(newWebhookSecret()).verify(body, received)).toThrow();
    expect(() => new StandardWebhook(current).verify(`${body} `, received)).toThrow();
    expect(received['webhook-id']).toBe('evt_1');
    expect(received['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
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
