import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { StaleVersionError } from '#shared/errors.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { readStoredVersions, versionedPut, versionedWrite } from '#shared/storage/versioned-write.ts';
import { versionAttributes } from '#shared/versioning/version-attributes.ts';

const key = () => ({ pk: `T#test#VERSIONED#${randomUUID()}`, sk: 'ITEM' });
const write = (k: { pk: string; sk: string }, version: string, content: unknown = { version }) =>
  versionedWrite(k, { content }, versionAttributes(version, content));
const stored = async (k: { pk: string; sk: string }) =>
  (await tableClient().send(new GetCommand({ TableName: tableName(), Key: k, ConsistentRead: true }))).Item;

describe('the source_version guard on DynamoDB Local', () => {
  it('two concurrent writers with versions 5 and 6, in either order: version 6 always ends stored', async () => {
    for (let round = 0; round < 20; round++) {
      const k = key();
      const order = round % 2 === 0 ? ['5', '6'] : ['6', '5'];
      const outcomes = await Promise.allSettled(order.map((v) => write(k, v)));
      expect((await stored(k))?.source_version).toBe('6');
      const six = outcomes[order.indexOf('6')]!;
      expect(six.status).toBe('fulfilled');
      const five = outcomes[order.indexOf('5')]!;
      if (five.status === 'rejected') expect(five.reason).toBeInstanceOf(StaleVersionError);
    }
  });

  it('compares as the contract says, not as text: 10 is newer than 9, an RFC 3339 instant across offsets', async () => {
    const k = key();
    await write(k, '9');
    await expect(write(k, '10')).resolves.toMatchObject({ outcome: 'upserted' });
    await expect(write(k, '9')).rejects.toMatchObject({ code: 'stale_source_version', currentSourceVersion: '10' });

    const t = key();
    await write(t, '2026-11-22T10:00:00Z');
    await expect(write(t, '2026-11-22T11:30:00+02:00')).rejects.toBeInstanceOf(StaleVersionError);
    await expect(write(t, '2026-11-22T10:00:00.001Z')).resolves.toMatchObject({ outcome: 'upserted' });
  });

  it('the same version with identical content is unchanged and writes nothing; with other content it is stale', async () => {
    const k = key();
    await write(k, '7', { a: 1, b: [1, 2] });
    const before = await stored(k);
    await expect(write(k, '7', { b: [1, 2], a: 1 })).resolves.toMatchObject({ outcome: 'unchanged' });
    expect(await stored(k)).toEqual(before);
    await expect(write(k, '7', { a: 2 })).rejects.toMatchObject({ code: 'stale_source_version' });
  });
});

/** What a batch reads of the item before its put. */
const readVersion = async (k: { pk: string; sk: string }) => (await readStoredVersions([k]))(k);
const put = async (k: { pk: string; sk: string }, version: string, read: Awaited<ReturnType<typeof readVersion>>, content: unknown = { version }) =>
  versionedPut(k, { content }, versionAttributes(version, content), read, { createdAt: `created-with-${version}`, remove: ['archived_at'] });

describe('the versioned put a catalog batch makes after reading its stored versions', () => {
  it('keeps created_at, drops what the older version had, and answers unchanged or stale without writing', async () => {
    const k = key();
    await expect(put(k, '1', await readVersion(k))).resolves.toEqual({ outcome: 'upserted' });
    expect(await stored(k)).toMatchObject({ source_version: '1', created_at: 'created-with-1' });
    await versionedWrite(k, { archived_at: '2026-11-27T00:00:00Z' }, versionAttributes('2', { version: '2' }));

    await expect(put(k, '3', await readVersion(k))).resolves.toEqual({ outcome: 'upserted' });
    const third = await stored(k);
    expect(third).toMatchObject({ source_version: '3', created_at: 'created-with-1', content: { version: '3' } });
    expect(third).not.toHaveProperty('archived_at');

    // Every write stamps the item with a token of its own: an item equal to the one before is one nothing wrote.
    await expect(put(k, '3', await readVersion(k))).resolves.toEqual({ outcome: 'unchanged' });
    await expect(put(k, '2', await readVersion(k))).rejects.toMatchObject({ code: 'stale_source_version', currentSourceVersion: '3' });
    await expect(put(k, '3', await readVersion(k), { other: true })).rejects.toBeInstanceOf(StaleVersionError);
    expect(await stored(k)).toEqual(third);
  });

  it('an item changed since the read is decided against what is stored then, created_at kept', async () => {
    const newer = key();
    await put(newer, '1', undefined);
    const readBeforeTwo = await readVersion(newer);
    await write(newer, '3');
    await expect(put(newer, '2', readBeforeTwo)).rejects.toMatchObject({ code: 'stale_source_version', currentSourceVersion: '3' });
    expect(await stored(newer)).toMatchObject({ source_version: '3' });

    const older = key();
    await put(older, '1', undefined);
    const readBeforeThree = await readVersion(older);
    await write(older, '2');
    await expect(put(older, '3', readBeforeThree)).resolves.toEqual({ outcome: 'upserted' });
    expect(await stored(older)).toMatchObject({ source_version: '3', created_at: 'created-with-1' });

    const created = key();
    const readNothing = await readVersion(created);
    expect(readNothing).toBeUndefined();
    await put(created, '1', undefined);
    await expect(put(created, '2', readNothing)).resolves.toEqual({ outcome: 'upserted' });
    expect(await stored(created)).toMatchObject({ source_version: '2', created_at: 'created-with-1' });
  });

  it('an item stored without a content hash (written before hashes were stored) takes a newer version', async () => {
    const k = key();
    const { content_sha256: _, ...withoutHash } = versionAttributes('1', { version: '1' });
    await tableClient().send(new PutCommand({ TableName: tableName(), Item: { ...k, ...withoutHash, created_at: 'before-hashes' } }));
    await expect(put(k, '2', await readVersion(k))).resolves.toEqual({ outcome: 'upserted' });
    expect(await stored(k)).toMatchObject({ source_version: '2', created_at: 'before-hashes' });
  });

  it('two concurrent writers with versions 5 and 6 that both read nothing, in either order: version 6 always ends stored', async () => {
    for (let round = 0; round < 20; round++) {
      const k = key();
      const order = round % 2 === 0 ? ['5', '6'] : ['6', '5'];
      const outcomes = await Promise.allSettled(order.map((v) => put(k, v, undefined)));
      const last = await stored(k);
      expect(last).toMatchObject({ source_version: '6' });
      expect(['created-with-5', 'created-with-6']).toContain(last?.created_at);
      expect(outcomes[order.indexOf('6')]!.status).toBe('fulfilled');
      const five = outcomes[order.indexOf('5')]!;
      if (five.status === 'rejected') expect(five.reason).toBeInstanceOf(StaleVersionError);
    }
  });
});
