/**
 * `npm run bench -- fairness`, the noisy-neighbour suite: tenant B's normal mix alone, then
 * while tenant A floods (bench/suites/fairness-partners.ts, in a worker thread). The service
 * runs in this thread; its event-loop delay and the machine's CPU are reported per phase, so
 * a figure the machine made is told from one the design made.
 */
import { readFileSync } from 'node:fs';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { dynamoClient, tableName } from '#shared/storage/clients.ts';
import { type Figure, figure } from '../lib/figures.ts';
import { percentile, progress } from '../lib/measure.ts';
import type { Measured, PartnerMessage } from './fairness-partners.ts';

/** The machine's busy and total CPU ticks so far (Linux's /proc/stat). */
function cpuTicks(): { busy: number; total: number } {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  return { busy: total - ticks[3]! - ticks[4]!, total };
}

interface PhaseLoad {
  loopDelayP99Ms: number;
  machineBusyPercent: number;
  /** One small item written ten times a second (no reaction reads it): how long DynamoDB Local kept every writer waiting. */
  tableWriteP50Ms: number;
  tableWriteP99Ms: number;
}

/** Writes one small item ten times a second until stopped; the latencies, sorted. */
function probeTable(): { stop: () => Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const probing = (async () => {
    while (running) {
      const started = performance.now();
      await dynamoClient().send(new PutItemCommand({ TableName: tableName(), Item: { pk: { S: 'BENCH#probe' }, sk: { S: 'PROBE' } } }));
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await probing;
      return latencies.sort((a, b) => a - b);
    },
  };
}

const describeLoad = (load: PhaseLoad | undefined) =>
  load
    ? `${load.machineBusyPercent} % CPU busy, the service's event-loop delay p99 ${load.loopDelayP99Ms} ms, a DynamoDB Local write p50 ${load.tableWriteP50Ms} ms and p99 ${load.tableWriteP99Ms} ms`
    : 'not measured';

/** Runs the partners' thread; returns what it measured and how loaded the service was in each phase. */
function runPartners(baseUrl: string): Promise<{ measured: Measured; load: Record<string, PhaseLoad> }> {
  const load: Record<string, PhaseLoad> = {};
  const measuring: Promise<void>[] = [];
  const open = new Map<string, { loop: IntervalHistogram; cpu: ReturnType<typeof cpuTicks>; probe: ReturnType<typeof probeTable> }>();
  let reported = false;
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./fairness-partners.ts', import.meta.url), { workerData: { baseUrl } });
    worker.on('message', (message: PartnerMessage) => {
      if (message.kind === 'phase' && message.edge === 'start') {
        const loop = monitorEventLoopDelay({ resolution: 10 });
        loop.enable();
        open.set(message.label, { loop, cpu: cpuTicks(), probe: probeTable() });
      } else if (message.kind === 'phase') {
        const { label } = message;
        const started = open.get(label)!;
        started.loop.disable();
        const cpu = cpuTicks();
        measuring.push(
          started.probe.stop().then((reads) => {
            load[label] = {
              loopDelayP99Ms: Math.round(started.loop.percentile(99) / 1e6),
              machineBusyPercent: Math.round((100 * (cpu.busy - started.cpu.busy)) / Math.max(1, cpu.total - started.cpu.total)),
              tableWriteP50Ms: Math.round(percentile(reads, 50)),
              tableWriteP99Ms: Math.round(percentile(reads, 99)),
            };
            progress(`${label}: ${describeLoad(load[label])}`);
          }),
        );
      } else if (message.kind === 'done') {
        const { measured } = message;
        reported = true;
        void worker.terminate();
        Promise.all(measuring).then(() => resolve({ measured, load }), reject);
      } else {
        reject(new Error(message.message));
      }
    });
    worker.on('error', reject);
    // A thread that ends right after its report has that message handed over in the same turn as
    // its 'exit', before the report's promise can settle: only an exit without a report is a failure.
    worker.on('exit', (code) => {
      if (!reported) reject(new Error(`the partners' thread exited (${code}) before it reported`));
    });
  });
}

export async function run(baseUrl: string): Promise<Figure[]> {
  const { measured: m, load } = await runPartners(baseUrl);
  progress(`A's answers: ${JSON.stringify(m.aStatuses)}; its endpoint got ${m.endpointAttempts} attempts; breaker ${m.breaker}`);
  const machine = (label: string) => describeLoad(load[label]);
  const note = `B: ${m.bOrders} orders and ${m.during.events} events delivered during the flood (${m.alone.events} alone), none lost; A's answers ${JSON.stringify(m.aStatuses)}, its rules ${m.rulesKept.stored} stored and ${m.rulesKept.refused} refused (set up before the flood), its hanging endpoint got ${m.endpointAttempts} attempts for ${m.aTestDeliveries} test deliveries; the machine alone ${machine('alone')}, during the flood ${machine('during')}`;
  const pair = (name: string, unit: string, value: number, floor: number) =>
    figure({
      suite: 'fairness',
      name,
      value,
      unit,
      floor: { value: Math.max(floor, 1), label: 'the same, tenant B alone' },
      target: { ratio: 1.5, direction: 'at_most' },
      note,
    });
  return [
    pair('B: POST /orders to first call, p50 during the flood', 'ms', percentile(m.during.toCall, 50), percentile(m.alone.toCall, 50)),
    pair('B: POST /orders to first call, p99 during the flood', 'ms', percentile(m.during.toCall, 99), percentile(m.alone.toCall, 99)),
    pair('B: event to delivery, p50 during the flood', 'ms', percentile(m.during.toDelivery, 50), percentile(m.alone.toDelivery, 50)),
    pair('B: event to delivery, p99 during the flood', 'ms', percentile(m.during.toDelivery, 99), percentile(m.alone.toDelivery, 99)),
  ];
}
