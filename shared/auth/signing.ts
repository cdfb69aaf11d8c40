/**
 * Request signing (contract-decisions section 1). Pure functions shared by the
 * authenticator, the tests, the admin CLI and the benchmarks, so client and server can
 * never canonicalise differently.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_PREFIX = 'hmac-sha256=';

export type QueryParameters = Record<string, readonly string[] | undefined>;

export const sha256Hex = (body: string | Uint8Array): string => createHash('sha256').update(body).digest('hex');

/**
 * Parameters sorted by (decoded) name then value by code unit, each encoded with
 * encodeURIComponent and joined with `&`; empty when there are none.
 */
export function canonicalQuery(query: QueryParameters | null | undefined): string {
  const pairs: [string, string][] = [];
  for (const [name, values] of Object.entries(query ?? {})) for (const value of values ?? []) pairs.push([name, value]);
  pairs.sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join('&');
}

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

export interface SignatureInput {
  method: string;
  /** Full path starting with /api/v1/commerce, path parameters percent-encoded. */
  path: string;
  query: QueryParameters | null | undefined;
  keyId: string;
  timestamp: string;
  nonce: string;
  contentSha256: string;
}

export function stringToSign(input: SignatureInput): string {
  return [input.method.toUpperCase(), input.path, canonicalQuery(input.query), input.keyId, input.timestamp, input.nonce, input.contentSha256].join('\n');
}

export const hmacHex = (secret: string, message: string | Uint8Array): string => createHmac('sha256', secret).update(message).digest('hex');

export const signatureHeader = (secret: string, input: SignatureInput): string => SIGNATURE_PREFIX + hmacHex(secret, stringToSign(input));

/** Timing-safe comparison of two lower-case hex strings. */
export function hexEquals(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

export interface SignedHeaders {
  'X-SVC-Key-Id': string;
  'X-SVC-Timestamp': string;
  'X-SVC-Nonce': string;
  'X-SVC-Content-SHA256': string;
  'X-SVC-Signature': string;
}

/** Builds the five authentication headers for a request; used by clients, tests and benches. */
export function signRequest(
  credentials: { keyId: string; secret: string },
  request: { method: string; path: string; query?: QueryParameters; body?: string | Uint8Array; timestamp?: string; nonce: string },
): SignedHeaders {
  const contentSha256 = sha256Hex(request.body ?? '');
  const timestamp = request.timestamp ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const input: SignatureInput = {
    method: request.method,
    path: request.path,
    query: request.query,
    keyId: credentials.keyId,
    timestamp,
    nonce: request.nonce,
    contentSha256,
  };
  return {
    'X-SVC-Key-Id': credentials.keyId,
    'X-SVC-Timestamp': timestamp,
    'X-SVC-Nonce': request.nonce,
    'X-SVC-Content-SHA256': contentSha256,
    'X-SVC-Signature': signatureHeader(credentials.secret, input),
  };
}
