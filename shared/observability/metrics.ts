/**
 * Emits the service's metrics (`metric-names.ts`) in CloudWatch's embedded metric format: one
 * JSON line on stdout per data point, which Lambda's log pipeline turns into metrics with no
 * API call. Each point is its own line because its dimensions differ from the next one's. The
 * lines are those Powertools' Metrics writes for a single metric (the `service` dimension first);
 * these few lines replaced it, for the functions' cold start (logger.ts says how much).
 */
import { METRICS_NAMESPACE, SERVICE_NAME } from './metric-names.ts';

type Dimensions = Record<string, string>;

/** CloudWatch takes at most 30 dimensions on a metric; `service` is one of them. */
const MAX_DIMENSIONS = 29;

function emit(name: string, unit: 'Count' | 'Milliseconds', value: number, dimensions: Dimensions): void {
  const named = Object.entries(dimensions).filter(([, v]) => v !== '');
  if (named.length > MAX_DIMENSIONS) throw new RangeError(`metric ${name}: ${named.length} dimensions, at most ${MAX_DIMENSIONS}`);
  const document = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['service', ...named.map(([key]) => key)]], Metrics: [{ Name: name, Unit: unit }] }],
    },
    service: SERVICE_NAME,
    ...Object.fromEntries(named),
    [name]: value,
  };
  process.stdout.write(`${JSON.stringify(document)}\n`);
}

export function countMetric(name: string, dimensions: Dimensions = {}, value = 1): void {
  emit(name, 'Count', value, dimensions);
}

export function millisecondsMetric(name: string, milliseconds: number, dimensions: Dimensions = {}): void {
  emit(name, 'Milliseconds', Math.max(0, Math.round(milliseconds)), dimensions);
}
