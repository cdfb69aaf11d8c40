/**
 * The HMAC authorizer's logic (contract-decisions section 1), independent of Middy. Checks
 * run in the contract's order: headers, key, body hash and signature (all one code, so the
 * response never reveals which key ids exist), then the timestamp window, then the nonce.
 */
import { REPLAY_WINDOW_SECONDS } from '../api/limits.ts';
import type { Scope } from '../api/scopes.ts';
import { ExpiredTimestampError, InvalidSignatureError, ReplayedNonceError } from '../errors.ts';
import { hexEquals, hmacHex, type QueryParameters, SIGNATURE_PREFIX, sha256Hex, stringToSign } from './signing.ts';

export interface Principal {
  tenant: string;
  keyId: string;
  scopes: readonly Scope[];
}

export interface KnownKey {
  tenant: string;
  scopes: readonly Scope[];
  secret: string;
  status: 'active' | 'revoked';
}

export interface AuthPorts {
  findKey(keyId: string): Promise<KnownKey | undefined>;
  /** Records the nonce until `expiresAt`; false when it is already recorded and unexpired. */
  claimNonce(principal: Principal, nonce: string, expiresAt: Date, now: Date): Promise<boolean>;
  now(): Date;
}

export interface IncomingRequest {
  method: string;
  /** Canonical path: BASE_PATH plus the route path with encodeURIComponent'd parameters. */
  path: string;
  query: QueryParameters | null | undefined;
  /** Lower-case header names. */
  headers: Readonly<Record<string, string | undefined>>;
  body: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,128}$/;
const NONCE = /^[A-Za-z0-9._~-]{1,128}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const SIGNATURE = new RegExp(`^${SIGNATURE_PREFIX}([0-9a-f]{64})$`);
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|\+00:00)$/;

/**
 * The key ids the service issues (`key_test_…`, `key_live_…`, and the older `key_…`), as the WAF
 * reads them: a made-up id of another shape counts as unsigned at the edge, so inventing ids
 * cannot buy a flood a rate bucket of its own.
 */
export const ISSUED_KEY_ID = /^key_(?:test_|live_)?[0-9a-f]{16,48}$/;

/** The form of each authentication header: checked here first, and by the WAF at the edge (a request without them gets the low per-address limit). */
export const WELL_FORMED_HEADERS: Readonly<Record<string, RegExp>> = {
  'x-svc-key-id': KEY_ID,
  'x-svc-timestamp': RFC3339_UTC,
  'x-svc-nonce': NONCE,
  'x-svc-content-sha256': SHA256_HEX,
  'x-svc-signature': SIGNATURE,
};

/** `x-svc-content-sha256` as the contract spells it: `X-SVC-Content-SHA256`. */
const headerName = (name: string) =>
  name
    .split('-')
    .map((part) => (part === 'svc' ? 'SVC' : part === 'sha256' ? 'SHA256' : part[0]!.toUpperCase() + part.slice(1)))
    .join('-');

export async function authenticate(request: IncomingRequest, ports: AuthPorts): Promise<Principal> {
  const h = request.headers;
  const keyId = h['x-svc-key-id'];
  const timestamp = h['x-svc-timestamp'];
  const nonce = h['x-svc-nonce'];
  const contentSha256 = h['x-svc-content-sha256'];
  const signature = SIGNATURE.exec(h['x-svc-signature'] ?? '')?.[1];
  const instant = timestamp && RFC3339_UTC.test(timestamp) ? Date.parse(timestamp) : Number.NaN;
  // Which header is missing or malformed: said in the detail, as it tells nothing about any key.
  const malformed = Object.entries(WELL_FORMED_HEADERS).find(([name, form]) => !form.test(h[name] ?? ''))?.[0];
  if (malformed || !keyId || !nonce || !contentSha256 || !signature || !timestamp || Number.isNaN(instant)) {
    throw new InvalidSignatureError(
      `The five X-SVC authentication headers must be present and well formed${malformed ? `: ${headerName(malformed)} is ${h[malformed] ? 'malformed' : 'missing'}` : ''}.`,
    );
  }

  const key = await ports.findKey(keyId);
  const expected = key?.status === 'active' ? key : undefined;
  const bodyMatches = hexEquals(sha256Hex(request.body), contentSha256);
  const signed = stringToSign({ method: request.method, path: request.path, query: request.query, keyId, timestamp, nonce, contentSha256 });
  // Computed even for an unknown key, so timing does not reveal whether a key id exists.
  const signatureMatches = hexEquals(hmacHex(expected?.secret ?? 'unknown-key', signed), signature);
  // The body hash is checked against the body alone: saying it differs tells nothing about any key.
  if (!bodyMatches) throw new InvalidSignatureError('X-SVC-Content-SHA256 is not the hex SHA-256 of the body as received (an empty body hashes to e3b0c442…).');
  if (!expected || !signatureMatches) {
    // One answer for a wrong secret, an unknown or revoked key and a string-to-sign built differently: telling them apart would tell which key ids exist.
    throw new InvalidSignatureError(
      'The signature does not verify: HMAC-SHA256 with your secret over the string-to-sign (method, path, sorted query, key id, timestamp, nonce and body hash, one per line).',
    );
  }

  const now = ports.now();
  if (Math.abs(now.getTime() - instant) > REPLAY_WINDOW_SECONDS * 1000) {
    throw new ExpiredTimestampError(`X-SVC-Timestamp must be within ${REPLAY_WINDOW_SECONDS} s of the server time (${now.toISOString()}).`);
  }

  const principal: Principal = { tenant: expected.tenant, keyId, scopes: expected.scopes };
  // Kept for the window after it was first seen (the contract: no nonce twice within 300 s,
  // whatever timestamp it comes with), and at least until this request's own timestamp leaves
  // the window, so an exact replay is refused for as long as its signature would pass.
  const nonceExpiresAt = new Date(Math.max(instant, now.getTime()) + REPLAY_WINDOW_SECONDS * 1000);
  if (!(await ports.claimNonce(principal, nonce, nonceExpiresAt, now))) {
    throw new ReplayedNonceError(`The nonce was already used within the last ${REPLAY_WINDOW_SECONDS} s.`);
  }
  return principal;
}
