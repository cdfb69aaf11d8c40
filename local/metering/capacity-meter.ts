/**
 * Consumed-capacity metering for benchmarks and cost figures: when the local runtime runs with
 * COST_METERING (the benchmarks do), every DynamoDB call asks for ReturnConsumedCapacity (per
 * index) and the units are added up here twice: as DynamoDB Local reports them, and as DynamoDB
 * bills them. The two differ: Local doubles a transaction's index writes where DynamoDB doubles
 * only the table's, and reports nothing for a write whose condition failed, which DynamoDB
 * bills (at least 1 WCU). The bookkeeping is for measurements only: no function imports it, so
 * no deployed bundle holds it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { decorateClients } from '#shared/storage/clients.ts';
import { billedItemWrite, type Image, itemSize, totalOf } from './billing.ts';

export interface CapacityTotals {
  calls: number;
  readUnits: number;
  /** As DynamoDB Local reports them. */
  writeUnits: number;
  /** As DynamoDB bills them (billedWriteUnits). */
  billedWriteUnits: number;
  /** Writes refused by their condition: billed, not reported. */
  failedConditionalWrites: number;
}

/** Per kind of call (command and the items' sort-key kinds), for tracing where an order's units go. */
interface KindTotals {
  calls: number;
  billedWriteUnits: number;
  readUnits: number;
  /** As DynamoDB Local reports them: the table's write units, and every index's. */
  localTableWriteUnits: number;
  localIndexWriteUnits: Record<string, number>;
  /** Billed from images only: the largest item such a call wrote, in bytes. */
  largestItemBytes: number;
}
const byKind = new Map<string, KindTotals>();

type Input = Record<string, unknown>;
/** `ORDER` for the key `{ sk: 'ORDER' }` or `{ sk: { S: 'ORDER#…' } }`. */
const kindOfKey = (key: Image) => String(key.sk?.S ?? '?').split('#')[0]!;

/**
 * `PutItem ORDER`, `TransactWriteItems Put:ORDER+Put:EVENT`, `Query gsi2`: what a call wrote or
 * read, by kind; `written`, the call's items when the meter has walked them already.
 */
export function kindOfCall(commandName: string, input: Input, written?: readonly WrittenItem[]): string {
  const command = commandName.replace(/Command$/, '');
  if (command === 'BatchWriteItem') return command;
  if (command === 'Query' || command === 'Scan') return `${command} ${String(input.IndexName ?? 'table')}`;
  if (command === 'TransactWriteItems')
    return `${command} ${(written ?? writtenItems(commandName, input)).map((w) => `${w.operation}:${kindOfKey(w.key)}`).join('+')}`;
  return `${command} ${kindOfKey(marshalledKey((input.Item ?? input.Key ?? {}) as Input))}`;
}

/** What each kind of call consumed since the last reset, most billed writes first. */
export const capacityByKind = () => [...byKind].sort((a, b) => b[1].billedWriteUnits - a[1].billedWriteUnits);

const empty = (): CapacityTotals => ({ calls: 0, readUnits: 0, writeUnits: 0, billedWriteUnits: 0, failedConditionalWrites: 0 });
const totals: CapacityTotals = empty();
/** Per-request totals, for the cost figures of each endpoint. */
const scope = new AsyncLocalStorage<CapacityTotals>();

/** Runs `fn` and answers what its own DynamoDB calls consumed (concurrent work is not counted). */
export async function withCapacityScope<T>(fn: () => Promise<T>): Promise<{ result: T; capacity: CapacityTotals }> {
  const capacity = empty();
  const result = await scope.run(capacity, fn);
  return { result, capacity };
}

export const capacityTotals = (): CapacityTotals => ({ ...totals });

export function resetCapacityTotals(): void {
  Object.assign(totals, empty());
  byKind.clear();
}

interface Units {
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
  CapacityUnits?: number;
}

/** One table's part of a call's ConsumedCapacity, asked for with ReturnConsumedCapacity INDEXES. */
export interface Consumed extends Units {
  Table?: Units;
  GlobalSecondaryIndexes?: Record<string, Units>;
  LocalSecondaryIndexes?: Record<string, Units>;
}

const writeUnitsOf = (u: Units | undefined) => u?.WriteCapacityUnits ?? u?.CapacityUnits ?? 0;

/**
 * What DynamoDB bills for a write call's consumed capacity: a transaction pays twice for each
 * table write and once for each index write its items cause; any other write pays the units
 * reported. (DynamoDB Local reports a transaction's index writes doubled as well.)
 */
export function billedWriteUnits(commandName: string, consumed: Consumed[]): number {
  if (commandName !== 'TransactWriteItemsCommand') return consumed.reduce((sum, c) => sum + writeUnitsOf(c), 0);
  return consumed.reduce((sum, c) => {
    if (!c.Table) return sum + writeUnitsOf(c);
    const indexes = [...Object.values(c.GlobalSecondaryIndexes ?? {}), ...Object.values(c.LocalSecondaryIndexes ?? {})];
    return sum + writeUnitsOf(c.Table) + indexes.reduce((n, u) => n + writeUnitsOf(u), 0) / 2;
  }, 0);
}

/** A single-item write whose condition failed: DynamoDB bills it at least 1 WCU (more for a larger item, which Local does not show). */
export const FAILED_CONDITIONAL_WRITE_UNITS = 1;

/** One metered call, as a function's thread tells it to the runtime (function-worker.ts). */
export interface CapacityEntry {
  commandName: string;
  callKind: string;
  consumed: Consumed | Consumed[] | undefined;
  failedCondition: boolean;
  fromImages: number | undefined;
  largestItemBytes: number;
}

let sink: ((entry: CapacityEntry) => void) | undefined;
/** In a function's thread: every metered call is also told to the runtime, which keeps the totals of all of them. */
export const setCapacitySink = (report: (entry: CapacityEntry) => void): void => {
  sink = report;
};

/** A call metered in a function's thread, added to the runtime's totals. */
export const addReported = (e: CapacityEntry): void => add(e.commandName, e.callKind, e.consumed, e.failedCondition, e.fromImages, e.largestItemBytes, false);

function add(
  commandName: string,
  callKind: string,
  consumed: Consumed | Consumed[] | undefined,
  failedCondition = false,
  fromImages?: number,
  largestItemBytes = 0,
  report = true,
): void {
  if (report && sink) sink({ commandName, callKind, consumed, failedCondition, fromImages, largestItemBytes });
  const local = scope.getStore();
  const isWrite = WRITE_COMMANDS.has(commandName);
  const all = [consumed ?? []].flat();
  const read = isWrite ? 0 : all.reduce((sum, c) => sum + (c.ReadCapacityUnits ?? c.CapacityUnits ?? 0), 0);
  const write = isWrite ? all.reduce((sum, c) => sum + writeUnitsOf(c), 0) : 0;
  const billed = !isWrite ? 0 : (fromImages ?? billedWriteUnits(commandName, all) + (failedCondition ? FAILED_CONDITIONAL_WRITE_UNITS : 0));
  for (const t of local ? [totals, local] : [totals]) {
    t.calls++;
    t.readUnits += read;
    t.writeUnits += write;
    t.billedWriteUnits += billed;
    if (failedCondition) t.failedConditionalWrites++;
  }
  const kind = callKind + (failedCondition ? ' (refused)' : '');
  const k = byKind.get(kind) ?? { calls: 0, billedWriteUnits: 0, readUnits: 0, localTableWriteUnits: 0, localIndexWriteUnits: {}, largestItemBytes: 0 };
  k.calls++;
  k.billedWriteUnits += billed;
  k.readUnits += read;
  k.largestItemBytes = Math.max(k.largestItemBytes, largestItemBytes);
  if (isWrite)
    for (const c of all) {
      k.localTableWriteUnits += writeUnitsOf(c.Table);
      for (const [index, units] of Object.entries(c.GlobalSecondaryIndexes ?? {}))
        k.localIndexWriteUnits[index] = (k.localIndexWriteUnits[index] ?? 0) + writeUnitsOf(units);
    }
  byKind.set(kind, k);
}

/** The DynamoDB client's commands that write. */
export const WRITE_COMMANDS: ReadonlySet<string> = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);

let fromImages = false;
/**
 * Bills every write from the items' images, read (consistently) before and after it, by
 * DynamoDB's rules (`billing.ts`) instead of from DynamoDB Local's report, which bills a
 * transaction's items and an index entry's move otherwise than DynamoDB does. The reads are
 * not counted, but they slow every write: for cost figures, not for timings.
 */
const imageListeners: ((on: boolean) => void)[] = [];
export const billFromImages = (on: boolean) => {
  fromImages = on;
  for (const listener of imageListeners) listener(on);
};
/** Whether writes are billed from their images now (a function's thread started later starts so). */
export const billingFromImages = (): boolean => fromImages;
/** The runtime passes the setting on to every function's thread (function-hosts.ts). */
export const onBillFromImages = (listener: (on: boolean) => void): void => void imageListeners.push(listener);

/** The reads the meter makes itself, which it does not meter. */
const ownReads = new WeakSet<object>();

interface WrittenItem {
  table: string;
  key: Image;
  /** Put, Update, Delete or ConditionCheck. */
  operation: string;
  transactional: boolean;
  /** A transaction's condition check: billed as a write of the item, which it leaves as it is. */
  checkOnly: boolean;
}

/** The key as DynamoDB holds it, whether the call came marshalled (the raw client) or not (the document client). */
const marshalledKey = (key: Record<string, unknown>): Image =>
  Object.fromEntries(['pk', 'sk'].map((name) => [name, typeof key[name] === 'string' ? { S: key[name] as string } : (key[name] as Image[string])]));

function writtenItems(commandName: string, input: Input): WrittenItem[] {
  const item = (table: unknown, body: Input, operation: string, transactional: boolean): WrittenItem => ({
    table: String(table),
    key: marshalledKey((body.Item ?? body.Key ?? {}) as Record<string, unknown>),
    operation,
    transactional,
    checkOnly: operation === 'ConditionCheck',
  });
  if (commandName === 'TransactWriteItemsCommand')
    return ((input.TransactItems ?? []) as Input[]).map((entry) => {
      const [operation, body] = Object.entries(entry)[0] as [string, Input];
      return item(body.TableName, body, operation, true);
    });
  if (commandName === 'BatchWriteItemCommand')
    return Object.entries((input.RequestItems ?? {}) as Record<string, Input[]>).flatMap(([table, requests]) =>
      requests.map((r) => (r.PutRequest ? item(table, r.PutRequest as Input, 'Put', false) : item(table, (r.DeleteRequest as Input) ?? {}, 'Delete', false))),
    );
  return [item(input.TableName, input, commandName.replace(/(Item)?Command$/, ''), false)];
}

const totalRefused = (met: readonly (Image | undefined)[]) =>
  met.reduce((sum, image) => sum + Math.max(FAILED_CONDITIONAL_WRITE_UNITS, Math.ceil((image ? itemSize(image) : 0) / 1024)), 0);

async function imagesOf(client: DynamoDBClient, items: readonly WrittenItem[]): Promise<(Image | undefined)[]> {
  return Promise.all(
    items.map(async ({ table, key }) => {
      const input = { TableName: table, Key: key, ConsistentRead: true };
      ownReads.add(input);
      return (await client.send(new GetItemCommand(input))).Item as Image | undefined;
    }),
  );
}

export function meterCapacity(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (ownReads.has(args.input)) return next(args);
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
      const commandName = context.commandName ?? '';
      const input = args.input as Input;
      const written = fromImages && WRITE_COMMANDS.has(commandName) ? writtenItems(commandName, input) : undefined;
      const kind = kindOfCall(commandName, input, written);
      const before = written ? await imagesOf(client, written) : undefined;
      try {
        const result = await next(args);
        let billed: number | undefined;
        let largest = 0;
        if (written && before) {
          const after = await imagesOf(client, written);
          billed = written.reduce((sum, w, i) => sum + totalOf(billedItemWrite(before[i], w.checkOnly ? before[i] : after[i], w.transactional)), 0);
          largest = Math.max(0, ...after.map((image) => (image ? itemSize(image) : 0)));
        }
        add(commandName, kind, (result.output as { ConsumedCapacity?: Consumed | Consumed[] }).ConsumedCapacity, false, billed, largest);
        return result;
      } catch (error) {
        // DynamoDB Local answers a refused condition without the capacity DynamoDB bills for it:
        // the item's size in 1 KB units (at least 1); a cancelled transaction, each of its items
        // so (its prepare phase, not the commit it never reached).
        const name = (error as { name?: string }).name;
        const refused = (name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException') && WRITE_COMMANDS.has(commandName);
        const billed = refused && before ? totalRefused(before) : undefined;
        add(commandName, kind, undefined, refused, billed);
        throw error;
      }
    },
    { step: 'initialize', name: 'capacityMeter' },
  );
}

/**
 * Meters every DynamoDB client the functions build from now on: the local runtime and the
 * benchmarks call it (COST_METERING); the functions themselves carry no meter.
 */
export function meterEveryTableClient(): void {
  decorateClients((service, client) => {
    if (service === 'dynamodb') meterCapacity(client as DynamoDBClient);
  });
}
