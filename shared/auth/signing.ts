/**
 * Request signing (contract-decisions section 1). The signing itself is the partner client's
 * (`client/src/signing.ts`), so client and server can never canonicalise differently; the
 * server adds what only it needs.
 */
import { timingSafeEqual } from 'node:crypto';

export {
  canonicalQuery,
  hmacHex,
  type QueryParameters,
  SIGNATURE_PREFIX,
  type SignatureInput,
  type SignedHeaders,
  sha256Hex,
  signatureHeader,
  signRequest,
  stringToSign,
} from '#client/signing.ts';

import type { QueryParameters } from '#client/signing.ts';

/** Parses a raw query string as sent (`a=1&b=x%20y`) into decoded name/value lists. */
export function parseQueryString(raw: string): QueryParameters {
  const out: Record<string, string[]> = {};
  if (!raw) return out;
  for (const part of raw.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? '' : decode(part.slice(eq + 1));
    out[name] = [...(out[name] ?? []), value];
  }
  return out;
}

/** Timing-safe comparison of two lower-case hex strings. */
export function hexEquals(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
