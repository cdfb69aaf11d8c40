/**
 * What DynamoDB bills for one item written, from the item as it was and as it is: its pricing
 * rules applied to the images themselves, not to DynamoDB Local's report (which counts a
 * transaction's items and index moves in ways DynamoDB does not bill). For measurements only.
 *
 * - The table write: the larger image, in 1 KB units (at least 1); twice within a transaction.
 * - Each global secondary index: nothing when the item is in it neither before nor after, nor
 *   when neither its keys nor its projected attributes changed; one write of the entry (its
 *   size in 1 KB units) when the item enters, leaves or changes only projected attributes; two
 *   (out, then in) when an index key changed. Index writes are not doubled in a transaction.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TABLE_DEFINITION } from '#shared/storage/definition.ts';

export type Image = Record<string, AttributeValue>;

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** A number's size: about one byte per two significant digits, plus one. */
const numberSize = (n: string) => {
  const digits = n.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
};

/** DynamoDB's size of one attribute value, in bytes. */
export function valueSize(v: AttributeValue): number {
  if (v.S !== undefined) return utf8(v.S);
  if (v.N !== undefined) return numberSize(v.N);
  if (v.B !== undefined) return v.B.length;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.SS) return v.SS.reduce((sum, s) => sum + utf8(s), 0);
  if (v.NS) return v.NS.reduce((sum, n) => sum + numberSize(n), 0);
  if (v.BS) return v.BS.reduce((sum, b) => sum + b.length, 0);
  // A list or map: 3 bytes, and 1 for each element (a map's element also its name).
  if (v.L) return 3 + v.L.reduce((sum, e) => sum + valueSize(e) + 1, 0);
  if (v.M) return 3 + Object.entries(v.M).reduce((sum, [name, e]) => sum + utf8(name) + valueSize(e) + 1, 0);
  return 0;
}

/** DynamoDB's size of an item: every attribute's name and value. */
export const itemSize = (image: Image): number => Object.entries(image).reduce((sum, [name, v]) => sum + utf8(name) + valueSize(v), 0);

const kilobytes = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

/** An index entry: the table's and the index's keys, its projected attributes, and 100 bytes of overhead. */
function indexEntry(image: Image | undefined, index: (typeof TABLE_DEFINITION.globalIndexes)[number]): Image | undefined {
  if (!image?.[index.partitionKey] || !image[index.sortKey]) return undefined;
  const names = [TABLE_DEFINITION.partitionKey, TABLE_DEFINITION.sortKey, index.partitionKey, index.sortKey, ...index.projectedAttributes];
  return Object.fromEntries(names.filter((name) => image[name] !== undefined).map((name) => [name, image[name]!]));
}

const entrySize = (entry: Image) => itemSize(entry) + 100;
/** A value's text with map members in name order: two reads of one item may list them differently. */
const canonical = (v: unknown): string =>
  v && typeof v === 'object'
    ? Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(',')}}`
    : JSON.stringify(v);
const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

export interface BilledWrite {
  table: number;
  indexes: Record<string, number>;
}

/** The units DynamoDB bills for writing one item from `before` to `after` (undefined: absent). */
export function billedItemWrite(before: Image | undefined, after: Image | undefined, transactional: boolean): BilledWrite {
  const larger = Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0);
  const indexes: Record<string, number> = {};
  for (const index of TABLE_DEFINITION.globalIndexes) {
    const old = indexEntry(before, index);
    const now = indexEntry(after, index);
    let units = 0;
    if (old && now) {
      const moved = !same(old[index.partitionKey], now[index.partitionKey]) || !same(old[index.sortKey], now[index.sortKey]);
      if (moved) units = kilobytes(entrySize(old)) + kilobytes(entrySize(now));
      else if (!same(old, now)) units = kilobytes(entrySize(now));
    } else if (old ?? now) units = kilobytes(entrySize((old ?? now)!));
    if (units) indexes[index.indexName] = units;
  }
  return { table: kilobytes(larger) * (transactional ? 2 : 1), indexes };
}

export const totalOf = (write: BilledWrite) => write.table + Object.values(write.indexes).reduce((sum, n) => sum + n, 0);
