/** What every versioned item carries, computed from the partner's source_version and content (contract-decisions section 3). */
import { createHash } from 'node:crypto';
import { sortableVersion } from './source-version.ts';

/** Attributes every versioned item carries. */
export interface VersionAttributes {
  source_version: string;
  version_kind: string;
  version_key: string;
  /** Hash of the partner's content, so the same version with the same content is `unchanged`. */
  content_sha256: string;
}

/** Stable JSON: object keys sorted, so equal content hashes equally whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function versionAttributes(sourceVersion: string, content: unknown): VersionAttributes {
  const { kind, key } = sortableVersion(sourceVersion);
  return {
    source_version: sourceVersion,
    version_kind: kind,
    version_key: key,
    content_sha256: createHash('sha256').update(canonicalJson(content)).digest('base64url'),
  };
}
