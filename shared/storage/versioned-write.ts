/**
 * The source_version guard of contract-decisions section 3, as one reusable piece: the
 * version check is the condition of the write itself, so two racing writers can never both
 * win and the newer version always ends stored. Every versioned entity writes through here.
 */
import { StaleVersionError } from '../errors.ts';
import { compareSourceVersions } from '../versioning/source-version.ts';
import type { VersionAttributes } from '../versioning/version-attributes.ts';
import { batchGet } from './batch.ts';
import { tableName } from './clients.ts';
import { writeConditionally } from './conditional.ts';
import { type ItemKey, itemKeyId } from './keys.ts';

export interface Condition {
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}

/** "No item yet, or the stored version is older than `v`" as a DynamoDB condition. */
export function newerVersionCondition(v: VersionAttributes, also?: Condition): Condition {
  const base: Condition = {
    ConditionExpression: 'attribute_not_exists(#sv) OR (#vkind = :vkind AND #vkey < :vkey) OR (#vkind <> :vkind AND #sv < :sv)',
    ExpressionAttributeNames: { '#sv': 'source_version', '#vkind': 'version_kind', '#vkey': 'version_key' },
    ExpressionAttributeValues: { ':sv': v.source_version, ':vkind': v.version_kind, ':vkey': v.version_key },
  };
  if (!also) return base;
  return {
    ConditionExpression: `(${base.ConditionExpression}) AND (${also.ConditionExpression})`,
    ExpressionAttributeNames: { ...base.ExpressionAttributeNames, ...also.ExpressionAttributeNames },
    ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ...also.ExpressionAttributeValues },
  };
}

/**
 * Why a versioned write was refused, given the stored item: the same version with the same
 * content is `unchanged` (success, nothing written); anything else is stale. Returns
 * undefined when the version check passed, i.e. the caller's extra condition failed.
 */
export function refusedVersionOutcome(
  stored: { source_version?: unknown; content_sha256?: unknown } | undefined,
  v: VersionAttributes,
): 'unchanged' | undefined {
  if (!stored || typeof stored.source_version !== 'string') return undefined;
  const order = compareSourceVersions(v.source_version, stored.source_version);
  if (order > 0) return undefined;
  if (order === 0 && stored.content_sha256 === v.content_sha256) return 'unchanged';
  throw new StaleVersionError(
    stored.source_version,
    order === 0 ? `source_version ${stored.source_version} is already stored with different content; send a newer one.` : undefined,
  );
}

export type VersionedWriteResult<T> = { outcome: 'upserted' } | { outcome: 'unchanged'; previous: T } | { outcome: 'refused'; previous: T | undefined };

export interface VersionedWriteOptions {
  /** The caller's own condition, e.g. "not anonymized"; `refused` when it alone fails. */
  also?: Condition;
  /** Attributes of an older version that the new one no longer has. */
  remove?: readonly string[];
  /** Set as `created_at` on the first write and kept by later ones. */
  createdAt?: string;
}

/**
 * Writes `attributes` if their version is newer than the stored one, in one conditional
 * write (an update, so `created_at` survives new versions).
 * @throws StaleVersionError when the stored version is newer, or equal with other content.
 */
export async function versionedWrite<T extends Record<string, unknown>>(
  key: ItemKey,
  attributes: Record<string, unknown>,
  version: VersionAttributes,
  options: VersionedWriteOptions = {},
): Promise<VersionedWriteResult<T>> {
  const condition = newerVersionCondition(version, options.also);
  const values: Record<string, unknown> = { ...condition.ExpressionAttributeValues };
  const names: Record<string, string> = { ...condition.ExpressionAttributeNames };
  const sets = Object.entries({ ...attributes, ...version })
    .filter(([, value]) => value !== undefined)
    .map(([name, value], i) => {
      names[`#u${i}`] = name;
      values[`:u${i}`] = value;
      return `#u${i} = :u${i}`;
    });
  if (options.createdAt) {
    names['#created'] = 'created_at';
    values[':created'] = options.createdAt;
    sets.push('#created = if_not_exists(#created, :created)');
  }
  const removes = (options.remove ?? []).map((name, i) => {
    names[`#r${i}`] = name;
    return `#r${i}`;
  });
  const written = await writeConditionally({
    update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ConditionExpression: condition.ConditionExpression,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      // Nothing back on success: no caller needs the item it replaced, and a product with 100
      // variants would travel back whole on every upsert of a catalog batch.
    },
  });
  if (written.written) return { outcome: 'upserted' };
  const stored = written.item as T | undefined;
  if (refusedVersionOutcome(stored, version) === 'unchanged') return { outcome: 'unchanged', previous: stored! };
  return { outcome: 'refused', previous: stored };
}

/** What a write that replaces an item whole needs to know of it: its version and when it was created. */
export type StoredVersion = ItemKey & Partial<VersionAttributes> & { created_at?: string };

/** The stored version of an item read by readStoredVersions; undefined for one not stored. */
export type StoredVersionOf = (key: ItemKey) => StoredVersion | undefined;

/**
 * The stored versions of `keyList`'s items, read strongly consistently (a version a moment old
 * could answer `unchanged` for an input a newer write has made stale): only the attributes a
 * versioned put decides by, not the items, 100 a call.
 */
export async function readStoredVersions(keyList: readonly ItemKey[]): Promise<StoredVersionOf> {
  const stored = await batchGet<StoredVersion>(keyList, {
    attributes: ['source_version', 'version_kind', 'version_key', 'content_sha256', 'created_at'],
    consistent: true,
  });
  const byKey = new Map(stored.map((item) => [itemKeyId(item), item]));
  return (key) => byKey.get(itemKeyId(key));
}

/**
 * versionedWrite for a caller that has read the stored version first (readStoredVersions): an
 * unchanged input is answered and a stale one refused with no write at all, and a newer one
 * replaces the item whole (a put: attributes of an older version are gone with it, and
 * `created_at` is carried over), on condition that the item is still what the read found: none,
 * or that very version. An item that changed since the read is written by versionedWrite, which
 * decides again against what is stored then.
 * @throws StaleVersionError when the stored version is newer, or equal with other content.
 */
export async function versionedPut(
  key: ItemKey,
  attributes: Record<string, unknown>,
  version: VersionAttributes,
  stored: StoredVersion | undefined,
  options: { createdAt: string; remove?: readonly string[] },
): Promise<{ outcome: 'upserted' | 'unchanged' }> {
  if (stored && refusedVersionOutcome(stored, version) === 'unchanged') return { outcome: 'unchanged' };
  const asRead = stored?.source_version
    ? {
        ConditionExpression: stored.content_sha256 ? '#sv = :sv AND #sha = :sha' : '#sv = :sv AND attribute_not_exists(#sha)',
        ExpressionAttributeNames: { '#sv': 'source_version', '#sha': 'content_sha256' },
        ExpressionAttributeValues: { ':sv': stored.source_version, ...(stored.content_sha256 ? { ':sha': stored.content_sha256 } : {}) },
      }
    : { ConditionExpression: 'attribute_not_exists(pk)' };
  const written = await writeConditionally({
    put: {
      TableName: tableName(),
      Item: { ...attributes, ...version, ...key, created_at: stored?.created_at ?? options.createdAt },
      ...asRead,
    },
  });
  if (written.written) return { outcome: 'upserted' };
  const decided = await versionedWrite(key, attributes, version, options);
  if (decided.outcome === 'refused') throw new Error('a versioned write with no condition of its own was refused');
  return { outcome: decided.outcome };
}
