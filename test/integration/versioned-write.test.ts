import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { StaleVersionError } from '#shared/errors.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { versionedWrite } from '#shared/storage/versioned-write.ts';
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
