/** The messages between the local runtime and a function's worker thread (function-hosts.ts, function-worker.ts). */
import type { CapacityEntry } from './metering/capacity-meter.ts';
import type { PermissionData } from './permissions.ts';

export interface FunctionWorkerData {
  functionName: string;
  /** The handler module, relative to the repository. */
  handler: string;
  timeoutSeconds: number;
  memoryMb: number;
  permissions: PermissionData;
  /** The fault switch's shares (LOCAL_FAULTS), by name. */
  faults: ReadonlyMap<string, number>;
  /** Bench runs only: every DynamoDB call metered, writes billed from their images when `billFromImages`. */
  costMetering: boolean;
  billFromImages: boolean;
  /** Where the runtime captures JSON log lines, if it does: the thread writes its own there, without a trip through the runtime. */
  logFile: string | undefined;
}

export type FromRuntime =
  | { type: 'invoke'; event: unknown; metered: boolean }
  | { type: 'call'; module: string; export: string; args: unknown[] }
  | { type: 'bill-from-images'; on: boolean };

export type ToRuntime =
  | { type: 'ready' }
  | { type: 'answer'; id: number; ok: true; value: unknown }
  | { type: 'answer'; id: number; ok: false; error: { name: string; message: string } }
  | { type: 'refused' | 'used'; entry: string }
  | { type: 'fault'; kind: string }
  | { type: 'capacity'; entry: CapacityEntry };
