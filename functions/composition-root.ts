/**
 * What every function reads once per instance, at module scope: the configuration, parsed
 * from the environment here and nowhere below. (Caches live in their own modules, so a
 * function loads only what it uses: the webhook sender never loads the tenant schemas.)
 */
import { runtimeConfig } from '#shared/config/runtime.ts';
import { SERVICE_NAME } from '#shared/observability/metric-names.ts';
import { decorateClients } from '#shared/storage/clients.ts';

export const config = runtimeConfig();

/**
 * X-Ray subsegments for every DynamoDB and SQS call (Powertools Tracer) when the stack is
 * deployed with `-c traceAwsCalls=true`. Loaded only then: the X-Ray SDK adds about 125 KB and
 * 25 ms to a function's cold start (a trivial bundle: 112 → 138 ms), which every request
 * would pay for a view most incidents do not need (the API → function trace is always on).
 */
if (config.traceAwsCalls) {
  const { Tracer } = await import('@aws-lambda-powertools/tracer');
  const tracer = new Tracer({ serviceName: SERVICE_NAME });
  decorateClients((_service, client) => void tracer.captureAWSv3Client(client));
}
