import { readFileSync } from 'node:fs';
import { repoRoot } from '../support/paths.ts';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalQuery, parseQueryString, sha256Hex, signatureHeader, stringToSign } from '#shared/auth/signing.ts';

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
