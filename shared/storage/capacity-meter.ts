/**
 * Consumed-capacity metering for benchmarks and cost figures: when COST_METERING is on,
 * every DynamoDB call asks for ReturnConsumedCapacity and the units are added up here.
 * Off by default: asking costs nothing on AWS, but the bookkeeping is for measurements only.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface CapacityTotals {
  calls: number;
  readUnits: number;
  writeUnits: number;
}

const totals: CapacityTotals = { calls: 0, readUnits: 0, writeUnits: 0 };
/** Per-request totals, for the cost figures of each endpoint. */
const scope = new AsyncLocalStorage<CapacityTotals>();

/** Runs `fn` and answers what its own DynamoDB calls consumed (concurrent work is not counted). */
export async function withCapacityScope<T>(fn: () => Promise<T>): Promise<{ result: T; capacity: CapacityTotals }> {
  const capacity: CapacityTotals = { calls: 0, readUnits: 0, writeUnits: 0 };
  const result = await scope.run(capacity, fn);
  return { result, capacity };
}

export const capacityTotals = (): CapacityTotals => ({ ...totals });

export function resetCapacityTotals(): void {
  totals.calls = 0;
  totals.readUnits = 0;
  totals.writeUnits = 0;
}

interface Consumed {
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
  CapacityUnits?: number;
}

function add(consumed: Consumed | Consumed[] | undefined, isWrite: boolean): void {
  const local = scope.getStore();
  if (local) local.calls++;
  for (const c of [consumed ?? []].flat()) {
    const read = c.ReadCapacityUnits ?? (isWrite ? 0 : (c.CapacityUnits ?? 0));
    const write = c.WriteCapacityUnits ?? (isWrite ? (c.CapacityUnits ?? 0) : 0);
    for (const t of local ? [totals, local] : [totals]) {
      t.readUnits += read;
      t.writeUnits += write;
    }
  }
}

/** The DynamoDB client's commands that write. */
export const WRITE_COMMANDS: ReadonlySet<string> = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);

export function meterCapacity(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      totals.calls++;
      add((result.output as { ConsumedCapacity?: Consumed | Consumed[] }).ConsumedCapacity, WRITE_COMMANDS.has(context.commandName ?? ''));
      return result;
    },
    { step: 'initialize', name: 'capacityMeter' },
  );
}
