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

/**
 * Stable JSON: object keys sorted, so equal content hashes equally whatever the key order.
 * Stored hashes depend on every character of it: for JSON data (what a parsed request holds,
 * object fields possibly undefined) it writes exactly what its first form wrote
 * (test/unit/versioning/canonical-json.test.ts). JSON.stringify given the sorted list of every
 * key in the value writes each object's keys in that order, natively: a catalog batch hashes
 * 50,000 variants, which the first form's entries, sorts and joins took 55-90 ms to write.
 */
export function canonicalJson(value: unknown): string {
  const names = new Set<string>();
  collectKeys(value, names);
  // Through the list, JSON.stringify reads `object[name]`: for an object without its own
  // `__proto__` that is its prototype, which would be written out.
  if (names.has('__proto__')) return sortedEntriesJson(value);
  return JSON.stringify(value, [...names].sort());
}

/** The same output, object by object: each object's defined fields in sorted order. */
function sortedEntriesJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(sortedEntriesJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const fields: string[] = [];
  for (const key of Object.keys(record).sort()) if (record[key] !== undefined) fields.push(`${JSON.stringify(key)}:${sortedEntriesJson(record[key])}`);
  return `{${fields.join(',')}}`;
}

function collectKeys(value: unknown, names: Set<string>): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) collectKeys(item, names);
    return;
  }
  for (const key of Object.keys(value)) {
    names.add(key);
    collectKeys((value as Record<string, unknown>)[key], names);
  }
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
