/**
 * Every deployed function in a worker thread of its own (function-worker.ts), as each Lambda
 * function is a sandbox of its own: its `process.env` is its own template environment, nothing
 * more, and its module state, caches and SDK clients are its alone. A function's thread starts
 * at its first invocation (its cold start) and stays warm; one that crashes is started again at
 * the next, as Lambda replaces a broken instance, and never takes the runtime down.
 *
 * What a thread's clients are refused, the faults injected into them and (bench runs) the units
 * they consume are told to the runtime, which keeps one account of every function's.
 */
import { Worker } from 'node:worker_threads';
import type { FaultSpec } from './faults.ts';
import { count as countFault } from './faults.ts';
import type { FromRuntime, FunctionWorkerData, ToRuntime } from './function-protocol.ts';
import { FunctionTimeoutError } from './invocation.ts';
import { captureFile } from './log-capture.ts';
import { addReported, billingFromImages, onBillFromImages } from './metering/capacity-meter.ts';
import type { PermissionCheck, PermissionData } from './permissions.ts';

export interface HostedFunction {
  name: string;
  /** The handler module, relative to the repository. */
  handler: string;
  timeoutSeconds: number;
  memoryMb: number;
  /** Exactly what the function's process sees as `process.env`. */
  environment: Record<string, string>;
}

export interface FunctionHostsOptions {
  functions: readonly HostedFunction[];
  permissions: PermissionData;
  /** The runtime's account of every function's refused and used calls. */
  check: PermissionCheck;
  faults: FaultSpec;
  costMetering: boolean;
  log: (line: string) => void;
}

export interface FunctionHosts {
  /** One invocation of the function with `event`; rejects as Lambda reports an invocation error (its name and message). */
  invoke(functionName: string, event: unknown, options?: { metered?: boolean }): Promise<unknown>;
  /** Runs an export of a module in the function's thread, with its role and no deadline (work of the function outside an invocation). */
  call(functionName: string, module: string, exportName: string, args?: unknown[]): Promise<unknown>;
  /** The functions whose thread has started so far. */
  started(): string[];
  stop(): Promise<void>;
}

/** Past its timeout and this much more, an invocation whose thread does not answer (its event loop held) is ended by the runtime. */
const UNANSWERED_GRACE_MS = 2_000;

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

class FunctionHost {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private readonly fn: HostedFunction;
  private readonly options: FunctionHostsOptions;

  constructor(fn: HostedFunction, options: FunctionHostsOptions) {
    this.fn = fn;
    this.options = options;
  }

  get isStarted(): boolean {
    return this.worker !== undefined;
  }

  private start(): Worker {
    const data: FunctionWorkerData = {
      functionName: this.fn.name,
      handler: this.fn.handler,
      timeoutSeconds: this.fn.timeoutSeconds,
      memoryMb: this.fn.memoryMb,
      permissions: { ...this.options.permissions, policies: this.options.permissions.policies.filter(([name]) => name === this.fn.name) },
      faults: this.options.faults,
      costMetering: this.options.costMetering,
      billFromImages: billingFromImages(),
      logFile: captureFile(),
    };
    // Its output goes to the runtime's streams (Node pipes a thread's stdout and stderr to its parent's).
    // Its heap is held to the template's MemorySize: past it the thread ends, as Lambda ends a function out of memory.
    const worker = new Worker(new URL('./function-worker.ts', import.meta.url), {
      workerData: data,
      env: this.fn.environment,
      resourceLimits: { maxOldGenerationSizeMb: this.fn.memoryMb },
    });
    worker.on('message', (message: ToRuntime) => this.receive(message));
    const ended = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const [, pending] of this.pending) pending.reject(Object.assign(new Error(`${this.fn.name}: ${reason}`), { name: 'Runtime.ExitError' }));
      this.pending.clear();
    };
    // An error the function did not catch ends its sandbox (Lambda: Runtime.ExitError); the next invocation starts a new one.
    worker.on('error', (error) => {
      this.options.log(`${this.fn.name}: its process ended on an error it did not catch (${error.name}); the next invocation starts it again`);
      ended(`the function's process ended (${error.name}: ${error.message})`);
    });
    worker.on('exit', (code) => ended(`the function's process exited with status ${code}`));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private receive(message: ToRuntime) {
    switch (message.type) {
      case 'answer': {
        const pending = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.ok) pending?.resolve(message.value);
        else pending?.reject(Object.assign(new Error(message.error.message), { name: message.error.name }));
        return;
      }
      case 'refused':
        this.options.check.refused.push(message.entry);
        return;
      case 'used':
        this.options.check.used.add(message.entry);
        return;
      case 'fault':
        countFault(message.kind);
        return;
      case 'capacity':
        addReported(message.entry);
        return;
      case 'ready':
        return;
    }
  }

  send(message: FromRuntime, deadlineMs?: number): Promise<unknown> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle =
        <T>(done: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          done(value);
        };
      this.pending.set(id, { resolve: settle(resolve), reject: settle(reject) });
      if (deadlineMs !== undefined)
        timer = setTimeout(() => {
          if (!this.pending.delete(id)) return;
          reject(new FunctionTimeoutError(this.fn.name, this.fn.timeoutSeconds));
        }, deadlineMs);
      worker.postMessage({ ...message, id });
    });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}

export function startFunctionHosts(options: FunctionHostsOptions): FunctionHosts {
  const hosts = new Map(options.functions.map((fn) => [fn.name, new FunctionHost(fn, options)]));
  const hostOf = (name: string) => {
    const host = hosts.get(name);
    if (!host) throw new Error(`No deployed function ${name}`);
    return host;
  };
  // The benchmarks' switch for billing writes from their images reaches every function's meter.
  onBillFromImages((on) => {
    for (const host of hosts.values()) if (host.isStarted) void host.send({ type: 'bill-from-images', on }).catch(() => undefined);
  });
  const fnOf = (name: string) => options.functions.find((f) => f.name === name)!;
  return {
    invoke: (name, event, { metered = false } = {}) =>
      hostOf(name).send({ type: 'invoke', event, metered }, fnOf(name).timeoutSeconds * 1000 + UNANSWERED_GRACE_MS),
    call: (name, module, exportName, args = []) => hostOf(name).send({ type: 'call', module, export: exportName, args }),
    started: () => [...hosts].filter(([, host]) => host.isStarted).map(([name]) => name),
    stop: async () => {
      await Promise.all([...hosts.values()].map((host) => host.stop()));
    },
  };
}
