import { describe, expect, it } from 'vitest';
import { billedWriteUnits } from '#shared/storage/capacity-meter.ts';

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
