/**
 * SSRF protection (contract-decisions section 8): only https URLs on public addresses, no
 * userinfo; at delivery the host is resolved, every address checked, and the connection
 * pinned to a checked address. The local runtime alone may allow private addresses and
 * plain http (WEBHOOK_ALLOW_PRIVATE_URLS=true) so receivers on 127.0.0.1 work.
 */
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
  ['100::', 64],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** An IPv4 address embedded in IPv6 (::ffff:a.b.c.d or its hex form), else undefined. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:0*:)*:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:0*:)*:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return undefined;
}

/** True for an address a webhook may be delivered to: public unicast only. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== undefined) return isIP(v4) === 4 && !blocked.check(v4, 'ipv4');
    return !blocked.check(address, 'ipv6');
  }
  return false;
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** The checks that need no DNS: scheme, userinfo, port, and a literal IP host. */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return { ok: false, reason: 'must use https' };
  if (url.username || url.password) return { ok: false, reason: 'must not contain user information (user:password@)' };
  if (url.hash) return { ok: false, reason: 'must not contain a fragment' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) return { ok: false, reason: 'must name a host' };
  if (isIP(host) && !allowPrivate && !isPublicAddress(host))
    return { ok: false, reason: 'must be a public address, not a private, loopback, link-local or metadata one' };
  if (!isIP(host) && !allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || !host.includes('.'))) {
    return { ok: false, reason: 'must be a public host name' };
  }
  return { ok: true, url };
}

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

/**
 * Resolves the URL's host and checks every address; returns the address to pin the
 * connection to, or why delivery is refused.
 */
export async function resolvePublicAddress(
  url: URL,
  resolve: Resolver,
  allowPrivate: boolean,
): Promise<{ ok: true; address: string; family: number } | { ok: false; reason: string }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host).catch(() => []);
  if (addresses.length === 0) return { ok: false, reason: `could not resolve ${host}` };
  if (!allowPrivate) {
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) return { ok: false, reason: `${host} resolves to a non-public address` };
  }
  return { ok: true, address: addresses[0]!.address, family: addresses[0]!.family };
}
