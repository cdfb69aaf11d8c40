/**
 * Emits the service's metrics (`metric-names.ts`) in CloudWatch's embedded metric format: one
 * JSON line on stdout per data point, which Lambda's log pipeline turns into metrics with no
 * API call. Each point is its own line because its dimensions differ from the next one's.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, SERVICE_NAME } from './metric-names.ts';

const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });

type Dimensions = Record<string, string>;

export function countMetric(name: string, dimensions: Dimensions = {}, value = 1): void {
  const point = metrics.singleMetric();
  point.addDimensions(dimensions);
  point.addMetric(name, MetricUnit.Count, value);
}

export function millisecondsMetric(name: string, milliseconds: number, dimensions: Dimensions = {}): void {
  const point = metrics.singleMetric();
  point.addDimensions(dimensions);
  point.addMetric(name, MetricUnit.Milliseconds, Math.max(0, Math.round(milliseconds)));
}
