import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { billedItemWrite, type Image, itemSize } from '#local/metering/billing.ts';
import { billedWriteUnits, kindOfCall } from '#local/metering/capacity-meter.ts';

describe('write units as DynamoDB bills them', () => {
  it('bills a transaction twice for each table write and once for each index write', () => {
    // DynamoDB Local's report of a transaction writing one 1 KB item with two index entries: everything doubled.
    const local = {
      TableName: 't',
      CapacityUnits: 6,
      Table: { CapacityUnits: 2 },
      GlobalSecondaryIndexes: { gsi1: { CapacityUnits: 2 }, gsi3: { CapacityUnits: 2 } },
    };
    expect(billedWriteUnits('TransactWriteItemsCommand', [local])).toBe(2 + 1 + 1);
  });

  it('bills any other write the units reported, its index writes included', () => {
    const put = {
      TableName: 't',
      CapacityUnits: 3,
      Table: { CapacityUnits: 1 },
      GlobalSecondaryIndexes: { gsi1: { CapacityUnits: 1 }, gsi2: { CapacityUnits: 1 } },
    };
    expect(billedWriteUnits('PutItemCommand', [put])).toBe(3);
    expect(billedWriteUnits('BatchWriteItemCommand', [put, put])).toBe(6);
  });

  it('takes a total without a per-table breakdown as it is', () => {
    expect(billedWriteUnits('TransactWriteItemsCommand', [{ CapacityUnits: 4 }])).toBe(4);
  });
});

describe('write units from the images of the item written (billing.ts)', () => {
  const entry = (state: string, extra: Record<string, AttributeValue> = {}): Image => ({
    pk: { S: 'T#t#ORDER#o-1' },
    sk: { S: 'ORDER' },
    gsi1pk: { S: 'T#t#ORDERS#3' },
    gsi1sk: { S: 'o-1' },
    gsi3pk: { S: `T#t#ORDERS#ST#${state}#0` },
    gsi3sk: { S: '2026-11-25T11:00:00.000Z#o-1' },
    list_view: { M: { processing_state: { S: state } } },
    ...extra,
  });

  it('sizes an item as DynamoDB does: names and values, 3 bytes and 1 per element for lists and maps, numbers by their digits', () => {
    expect(itemSize({ a: { S: 'héllo' } })).toBe(1 + 6);
    expect(itemSize({ n: { N: '12345' } })).toBe(1 + 4);
    expect(itemSize({ l: { L: [{ S: 'x' }, { BOOL: true }] } })).toBe(1 + 3 + 2 + 2);
    expect(itemSize({ m: { M: { k: { NULL: true } } } })).toBe(1 + 3 + 1 + 1 + 1);
  });

  it('bills a new item its table write and one write in each index it enters, the table write twice in a transaction', () => {
    expect(billedItemWrite(undefined, entry('received'), false)).toEqual({ table: 1, indexes: { gsi1: 1, gsi3: 1 } });
    expect(billedItemWrite(undefined, entry('received'), true)).toEqual({ table: 2, indexes: { gsi1: 1, gsi3: 1 } });
  });

  it('bills an index whose key changed two writes (out and in), one whose projection changed one, an unchanged one none', () => {
    expect(billedItemWrite(entry('received'), entry('scheduled'), false)).toEqual({ table: 1, indexes: { gsi1: 1, gsi3: 2 } });
    const due = { gsi2pk: { S: 'ORDERDUE#1' }, gsi2sk: { S: '2026-11-25T11:05:00.000Z' } };
    const later = { gsi2pk: { S: 'ORDERDUE#1' }, gsi2sk: { S: '2026-11-25T11:15:00.000Z' } };
    expect(billedItemWrite(entry('in_call', due), entry('in_call', later), false)).toEqual({ table: 1, indexes: { gsi2: 2 } });
    expect(billedItemWrite(entry('in_call', { dialing: { N: '1' } }), entry('in_call', { dialing: { N: '2' } }), false)).toEqual({ table: 1, indexes: {} });
    expect(billedItemWrite(entry('in_call', due), entry('completed'), false).indexes).toEqual({ gsi1: 1, gsi2: 1, gsi3: 2 });
  });

  it('bills the larger image in 1 KB units', () => {
    const big = entry('received', { blob: { S: 'x'.repeat(1500) } });
    expect(billedItemWrite(big, entry('received'), false).table).toBe(2);
    expect(billedItemWrite(entry('received'), undefined, false)).toEqual({ table: 1, indexes: { gsi1: 1, gsi3: 1 } });
  });
});

describe("the meter's trace labels", () => {
  it('names each written item by its kind, whether the call came marshalled or from the document client', () => {
    const transaction = {
      TransactItems: [
        { Put: { TableName: 't', Item: { pk: 'T#a#ORDER#1', sk: 'ORDER' } } },
        { Update: { TableName: 't', Key: { pk: { S: 'T#a#ORDER#1' }, sk: { S: 'EVENT#0002' } } } },
        { ConditionCheck: { TableName: 't', Key: { pk: 'T#a#CUSTOMER#c', sk: 'CUSTOMER' } } },
      ],
    };
    expect(kindOfCall('TransactWriteItemsCommand', transaction)).toBe('TransactWriteItems Put:ORDER+Update:EVENT+ConditionCheck:CUSTOMER');
    expect(kindOfCall('PutItemCommand', { Item: { pk: { S: 'x' }, sk: { S: 'DELIVERY#9' } } })).toBe('PutItem DELIVERY');
    expect(kindOfCall('GetItemCommand', { Key: { pk: 'x', sk: 'ORDER' } })).toBe('GetItem ORDER');
    expect(kindOfCall('QueryCommand', { IndexName: 'gsi2' })).toBe('Query gsi2');
  });
});
