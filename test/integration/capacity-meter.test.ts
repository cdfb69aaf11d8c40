/**
 * The capacity meter against DynamoDB Local on known cases: what it reports as billed is what
 * DynamoDB's pricing rules make of the same calls, whatever Local itself reports.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { billFromImages, capacityTotals, meterCapacity, resetCapacityTotals } from '#local/metering/capacity-meter.ts';
import { tableName } from '#shared/storage/clients.ts';

function meteredClient() {
  const raw = new DynamoDBClient({ region: process.env.AWS_REGION ?? 'us-east-1', endpoint: process.env.DYNAMODB_ENDPOINT! });
  meterCapacity(raw);
  return DynamoDBDocumentClient.from(raw);
}

/** Under 1 KB, with entries in two of the table's indexes (gsi1 and gsi3). */
const smallItem = () => {
  const id = randomUUID();
  return { pk: `T#meter#${id}`, sk: 'ITEM', gsi1pk: `T#meter#LIST`, gsi1sk: id, gsi3pk: `T#meter#FACET`, gsi3sk: id, list_view: { id } };
};

describe('the capacity meter', () => {
  it('bills a transaction writing an item with two index entries 2 + 1 + 1 WCU', async () => {
    const client = meteredClient();
    resetCapacityTotals();
    await client.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: tableName(), Item: smallItem() } }] }));
    expect(capacityTotals()).toMatchObject({ calls: 1, billedWriteUnits: 4 });
  });

  it('bills a plain put of the same item 1 + 1 + 1 WCU, as DynamoDB Local reports it', async () => {
    const client = meteredClient();
    resetCapacityTotals();
    await client.send(new PutCommand({ TableName: tableName(), Item: smallItem() }));
    expect(capacityTotals()).toMatchObject({ calls: 1, writeUnits: 3, billedWriteUnits: 3 });
  });

  it('bills a write refused by its condition 1 WCU, which DynamoDB Local does not report', async () => {
    const client = meteredClient();
    const item = smallItem();
    await client.send(new PutCommand({ TableName: tableName(), Item: item }));
    resetCapacityTotals();
    await expect(client.send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }))).rejects.toThrow();
    expect(capacityTotals()).toMatchObject({ calls: 1, writeUnits: 0, billedWriteUnits: 1, failedConditionalWrites: 1 });
  });

  describe('billing from the items written', () => {
    beforeEach(() => billFromImages(true));
    afterEach(() => billFromImages(false));

    it('bills a transaction of three items in one partition 2 WCU each, where DynamoDB Local reports fewer', async () => {
      const client = meteredClient();
      const pk = `T#meter#${randomUUID()}`;
      resetCapacityTotals();
      await client.send(
        new TransactWriteCommand({ TransactItems: ['A', 'B', 'C'].map((sk) => ({ Put: { TableName: tableName(), Item: { pk, sk, n: 1 } } })) }),
      );
      expect(capacityTotals()).toMatchObject({ calls: 1, billedWriteUnits: 6 });
    });

    it('bills an update that moves an index entry to another sort key 1 + 2 WCU (out and in), one that changes nothing indexed 1', async () => {
      const client = meteredClient();
      const item = smallItem();
      await client.send(new PutCommand({ TableName: tableName(), Item: item }));
      resetCapacityTotals();
      const key = { pk: item.pk, sk: item.sk };
      await client.send(
        new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: 'SET gsi3sk = :later', ExpressionAttributeValues: { ':later': 'z' } }),
      );
      expect(capacityTotals().billedWriteUnits).toBe(1 + 2);
      resetCapacityTotals();
      await client.send(
        new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: 'SET unindexed = :v', ExpressionAttributeValues: { ':v': 1 } }),
      );
      expect(capacityTotals().billedWriteUnits).toBe(1);
    });

    it('bills a write refused by its condition the size of the item it met', async () => {
      const client = meteredClient();
      const item = { ...smallItem(), blob: 'x'.repeat(1500) };
      await client.send(new PutCommand({ TableName: tableName(), Item: item }));
      resetCapacityTotals();
      await expect(client.send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }))).rejects.toThrow();
      expect(capacityTotals()).toMatchObject({ calls: 1, billedWriteUnits: 2, failedConditionalWrites: 1 });
    });

    it('bills a transaction cancelled by one condition each of its items once, at the size of what it met', async () => {
      const client = meteredClient();
      const stored = { ...smallItem(), blob: 'x'.repeat(1500) };
      await client.send(new PutCommand({ TableName: tableName(), Item: stored }));
      resetCapacityTotals();
      const fresh = smallItem();
      await expect(
        client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: tableName(), Item: fresh } },
              { Put: { TableName: tableName(), Item: stored, ConditionExpression: 'attribute_not_exists(pk)' } },
            ],
          }),
        ),
      ).rejects.toThrow();
      expect(capacityTotals()).toMatchObject({ calls: 1, billedWriteUnits: 1 + 2, failedConditionalWrites: 1 });
    });
  });
});
