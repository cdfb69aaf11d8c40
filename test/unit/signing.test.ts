import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalQuery, parseQueryString, sha256Hex, signatureHeader, stringToSign } from '#shared/auth/signing.ts';
import { verifyWebhook, WEBHOOK_HEADERS, webhookSignature } from '#shared/outbound/signature.ts';
import { repoRoot } from '../support/paths.ts';

interface Vector {
  name: string;
  request: { method: string; path: string; query_as_sent: string; body: string; headers: Record<string, string> };
  canonical_query: string;
  string_to_sign: string;
  signature_header: string;
}
const vectors = JSON.parse(readFileSync(join(repoRoot, 'contract/signing-vectors.json'), 'utf8')) as {
  secret: string;
  requests: Vector[];
  webhook: { secret: string; timestamp: string; event_id: string; raw_body: string; signed_content: string; signature: string };
};

describe('request signing matches the shared test vectors', () => {
  for (const v of vectors.requests) {
    it(v.name, () => {
      const query = parseQueryString(v.request.query_as_sent);
      expect(canonicalQuery(query)).toBe(v.canonical_query);
      expect(sha256Hex(v.request.body)).toBe(v.request.headers['X-SVC-Content-SHA256']);
      const input = {
        method: v.request.method,
        path: v.request.path,
        query,
        keyId: v.request.headers['X-SVC-Key-Id']!,
        timestamp: v.request.headers['X-SVC-Timestamp']!,
        nonce: v.request.headers['X-SVC-Nonce']!,
        contentSha256: v.request.headers['X-SVC-Content-SHA256']!,
      };
      expect(stringToSign(input)).toBe(v.string_to_sign);
      expect(signatureHeader(vectors.secret, input)).toBe(v.signature_header);
    });
  }
});

describe('webhook signing matches the shared test vector', () => {
  const w = vectors.webhook;
  it('signs timestamp, event id and raw body as contract-decisions section 8 says', () => {
    expect(`${w.timestamp}.${w.event_id}.${w.raw_body}`).toBe(w.signed_content);
    expect(webhookSignature(w.secret, w.timestamp, w.event_id, w.raw_body)).toBe(w.signature);
  });

  it('verifies the vector as a receiver would, and refuses it with one byte of the body changed', () => {
    const headers = { [WEBHOOK_HEADERS.timestamp]: w.timestamp, [WEBHOOK_HEADERS.eventId]: w.event_id, [WEBHOOK_HEADERS.signature]: w.signature };
    const now = new Date(Number(w.timestamp) * 1000 + 10_000);
    expect(verifyWebhook(headers, w.raw_body, [w.secret], { now })).toEqual({ valid: true, eventId: w.event_id });
    expect(verifyWebhook(headers, w.raw_body.replace('true', 'tru3'), [w.secret], { now })).toEqual({ valid: false, reason: 'bad_signature' });
  });
});
