/**
 * How the SSRF checks (ssrf.ts) word a refused webhook URL, and how long they wait for DNS: in
 * a module of its own, as the contract's schemas quote them, so a function that only describes
 * subscriptions does not carry the address classification (ipaddr.js) the checks need.
 */

/** DNS answers within this time or the URL counts as unresolvable (a slow resolver must not hold a sender). */
export const DNS_TIMEOUT_MS = 2_000;

/** Why a URL is refused, as the contract words it: each is a refusal's own message. */
export const URL_REFUSALS = {
  notAbsolute: 'is not an absolute URL',
  scheme: 'must use https',
  userinfo: 'must not contain user information (user:password@)',
  fragment: 'must not contain a fragment',
  port: 'must use port 443',
  noHost: 'must name a host',
  address: 'must be a public address, not a private, loopback, link-local or metadata one',
  hostName: 'must be a public host name',
} as const;
