/**
 * Request signing (the `hmac` security scheme of the contract): the one implementation, used by
 * this client and by the service that checks it, so the two cannot canonicalise differently.
 */
import { createHash, createHmac } from 'node:crypto';

export const SIGNATURE_PREFIX = 'hmac-sha256=';

/** Decoded query parameters: each name with its values, in any order. */
export type QueryParameters = Record<string, readonly string[] | undefined>;

export const sha256Hex = (body: string | Uint8Array): string => createHash('sha256').update(body).digest('hex');

/** Parameters sorted by name then value (by code unit), each `encodeURIComponent(name)=encodeURIComponent(value)`, joined by `&`. */
export function canonicalQuery(query: QueryParameters | null | undefined): string {
  const pairs: [string, string][] = [];
  for (const [name, values] of Object.entries(query ?? {})) for (const value of values ?? []) pairs.push([name, value]);
  pairs.sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join('&');
}

export interface SignatureInput {
  method: string;
  /** Full path from /api/v1/commerce, path parameters encodeURIComponent-encoded, no query. */
  path: string;
  query: QueryParameters | null | undefined;
  keyId: string;
  timestamp: string;
  nonce: string;
  contentSha256: string;
}

/** Seven lines joined by `\n`, without a trailing newline. */
export function stringToSign(input: SignatureInput): string {
  return [input.method.toUpperCase(), input.path, canonicalQuery(input.query), input.keyId, input.timestamp, input.nonce, input.contentSha256].join('\n');
}

export const hmacHex = (secret: string, message: string | Uint8Array): string => createHmac('sha256', secret).update(message).digest('hex');

export const signatureHeader = (secret: string, input: SignatureInput): string => SIGNATURE_PREFIX + hmacHex(secret, stringToSign(input));

export interface SignedHeaders {
  'X-SVC-Key-Id': string;
  'X-SVC-Timestamp': string;
  'X-SVC-Nonce': string;
  'X-SVC-Content-SHA256': string;
  'X-SVC-Signature': string;
}

export interface Credentials {
  keyId: string;
  secret: string;
}

/** The five authentication headers of one request (a new nonce for every attempt). */
export function signRequest(
  credentials: Credentials,
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
