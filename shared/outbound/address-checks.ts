/**
 * SSRF protection (contract-decisions section 8): only https URLs on public addresses, no
 * userinfo; at delivery the host is resolved, every address checked, and the connection
 * pinned to a checked address; only port 443. The local runtime alone may allow loopback and
 * private addresses, any port and plain http (WEBHOOK_ALLOW_PRIVATE_URLS=true) so receivers on
 * 127.0.0.1 work; link-local and metadata addresses stay refused even then.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { DNS_TIMEOUT_MS, URL_REFUSALS } from './url-refusals.ts';

/**
 * How the service treats an address: `public` (global unicast: deliverable), `local`
 * (loopback and private ranges: deliverable only with WEBHOOK_ALLOW_PRIVATE_URLS, for
 * receivers on this machine) and `forbidden` (everything else in the IANA special-purpose
 * registries, link-local and cloud metadata addresses included, whatever the switch says).
 * The classification is ipaddr.js's; IPv4-mapped addresses are judged as the IPv4 they carry.
 */
export type AddressClass = 'public' | 'local' | 'forbidden';

const LOCAL_RANGES = new Set(['loopback', 'private', 'uniqueLocal']);
/**
 * Parsed on the first check, not at load: the parses are most of what ipaddr.js costs a cold
 * start, and an instance's first request often checks no address (a refused key, an id that
 * names nothing, a host that does not resolve).
 */
const parseSpecialAddresses = () => ({
  /** Instance metadata services: AWS's IPv6 endpoint sits inside the unique-local range. */
  metadata: [ipaddr.parse('fd00:ec2::254'), ipaddr.parse('169.254.169.254')],
  /** IPv4-compatible IPv6 (::/96, deprecated by RFC 4291), which ipaddr.js leaves unclassified. */
  ipv4Compatible: ipaddr.parseCIDR('::/96'),
});
let special: ReturnType<typeof parseSpecialAddresses> | undefined;

export function addressClass(address: string): AddressClass {
  if (!ipaddr.isValid(address) || !isIP(address)) return 'forbidden';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  special ??= parseSpecialAddresses();
  const { metadata, ipv4Compatible } = special;
  if (metadata.some((m) => m.kind() === parsed.kind() && m.toNormalizedString() === parsed.toNormalizedString())) return 'forbidden';
  const range = parsed.range();
  if (range === 'unicast') return parsed.kind() === 'ipv6' && parsed.match(ipv4Compatible) ? 'forbidden' : 'public';
  return LOCAL_RANGES.has(range) ? 'local' : 'forbidden';
}

/** True for an address a webhook may be delivered to in production: public unicast only. */
export const isPublicAddress = (address: string): boolean => addressClass(address) === 'public';

const deliverable = (address: string, allowPrivate: boolean) => {
  const kind = addressClass(address);
  return kind === 'public' || (allowPrivate && kind === 'local');
};

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** The checks that need no DNS: scheme, userinfo, port, and a literal IP host. */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: URL_REFUSALS.notAbsolute };
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return { ok: false, reason: URL_REFUSALS.scheme };
  if (url.username || url.password) return { ok: false, reason: URL_REFUSALS.userinfo };
  if (url.hash) return { ok: false, reason: URL_REFUSALS.fragment };
  if (!allowPrivate && url.port !== '' && url.port !== '443') return { ok: false, reason: URL_REFUSALS.port };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) return { ok: false, reason: URL_REFUSALS.noHost };
  if (isIP(host) && !deliverable(host, allowPrivate)) return { ok: false, reason: URL_REFUSALS.address };
  // A fully qualified name may end in a dot (`localhost.` is `localhost`): the name checks read it without.
  const name = host.replace(/\.$/, '').toLowerCase();
  if (!isIP(host) && !allowPrivate && (name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.internal') || !name.includes('.'))) {
    return { ok: false, reason: URL_REFUSALS.hostName };
  }
  return { ok: true, url };
}

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

/**
 * Resolves the URL's host and checks every address; returns the address to pin the
 * connection to, or why delivery is refused. A name that does not resolve and one that
 * resolves to a private address get the same words: different ones would tell a caller which
 * names the service's own network knows. `unresolved` tells them apart for the caller only (a
 * name may resolve later; a private address is refused for good).
 */
export async function resolvePublicAddress(
  url: URL,
  resolve: Resolver,
  allowPrivate: boolean,
): Promise<{ ok: true; address: string; family: number } | { ok: false; reason: string; unresolved: boolean }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await withTimeout(resolve(host), DNS_TIMEOUT_MS).catch(() => []);
  const reason = `${host} does not resolve to a public address`;
  if (addresses.length === 0) return { ok: false, reason, unresolved: true };
  if (addresses.some((a) => !deliverable(a.address, allowPrivate))) return { ok: false, reason, unresolved: false };
  return { ok: true, address: addresses[0]!.address, family: addresses[0]!.family };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
