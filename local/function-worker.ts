/**
 * One deployed function, as Lambda runs it: a worker thread of its own, whose `process.env` is
 * exactly the function's template environment (resolved to the local stand-ins) and whose
 * modules, caches and clients belong to it alone. Its SDK clients are held to its own IAM
 * policy, faulted by the fault switch and metered for the benchmarks here, inside the function,
 * and what they refuse, inject or consume is reported to the runtime that started it
 * (function-hosts.ts). Each message `invoke` is one invocation under the function's timeout.
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { scopeLogKeysPerAsyncContext } from '#shared/logging/logger.ts';
import { decorateClients } from '#shared/storage/clients.ts';
import { unpoolSockets } from './client-decorators.ts';
import { setFaultSink, switchClientFaults } from './faults.ts';
import type { FromRuntime, FunctionWorkerData, ToRuntime } from './function-protocol.ts';
import { asFunction, invoke } from './invocation.ts';
import { lambdaContext } from './lambda-context.ts';
import { captureJsonLogs } from './log-capture.ts';
import { billFromImages, meterEveryTableClient, setCapacitySink, withCapacityScope } from './metering/capacity-meter.ts';
import { enforcePermissions, permissionCheckFrom } from './permissions.ts';

const data = workerData as FunctionWorkerData;
const port = parentPort!;
const post = (message: ToRuntime) => port.postMessage(message);
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

// A Lambda instance takes one request at a time; here one thread takes a function's concurrent ones, each in its own log scope.
scopeLogKeysPerAsyncContext();
if (data.logFile) captureJsonLogs(data.logFile);
setFaultSink((kind) => post({ type: 'fault', kind }));
if (data.costMetering) {
  setCapacitySink((entry) => post({ type: 'capacity', entry }));
  meterEveryTableClient();
  billFromImages(data.billFromImages);
}
switchClientFaults(data.faults);
const check = permissionCheckFrom(data.permissions, {
  refused: (entry) => post({ type: 'refused', entry }),
  used: (entry) => post({ type: 'used', entry }),
});
decorateClients((service, client) => enforcePermissions(service, client as never, check));
decorateClients((_service, client) => unpoolSockets(client));

const load = (modulePath: string) => import(pathToFileURL(join(repoRoot, modulePath)).href) as Promise<Record<string, unknown>>;
type Handler = (event: unknown, context: unknown) => Promise<unknown>;
const handler = (await load(data.handler)).handler as Handler;

const errorOf = (error: unknown) => ({ name: (error as Error)?.name ?? 'Error', message: (error as Error)?.message ?? String(error) });

async function answer(message: FromRuntime): Promise<unknown> {
  switch (message.type) {
    case 'invoke': {
      const run = () => handler(message.event, lambdaContext(data.functionName, data.timeoutSeconds, data.memoryMb));
      if (!message.metered) return invoke(data.functionName, data.timeoutSeconds, run);
      // The invocation's own DynamoDB units, in the header the cost suite reads.
      return invoke(data.functionName, data.timeoutSeconds, async () => {
        const { result, capacity } = await withCapacityScope(run as () => Promise<{ headers?: Record<string, unknown> }>);
        return { ...result, headers: { ...result.headers, 'X-Bench-Capacity': JSON.stringify(capacity) } };
      });
    }
    case 'call': {
      // Work of the function's outside an invocation (the reconciliation after a restart): its role, no deadline.
      const fn = (await load(message.module))[message.export] as (...args: unknown[]) => Promise<unknown>;
      return asFunction(data.functionName, () => fn(...message.args));
    }
    case 'bill-from-images':
      billFromImages(message.on);
      return undefined;
  }
}

port.on('message', (message: FromRuntime & { id: number }) => {
  answer(message).then(
    (value) => post({ type: 'answer', id: message.id, ok: true, value }),
    (error: unknown) => post({ type: 'answer', id: message.id, ok: false, error: errorOf(error) }),
  );
});
post({ type: 'ready' });
