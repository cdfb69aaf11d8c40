/**
 * Every function of the service: Node 22 on arm64, bundled by the project's esbuild settings
 * (no Docker), JSON logs kept a month, and the environment that binds it to the table and
 * the queues.
 */
import { join } from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { BUNDLE_OPTIONS, SDK_EXTERNAL_MODULES, TRACING_MODULES } from '../bundling.ts';

export const repoRoot = join(import.meta.dirname, '..', '..');

/** The construct id of a route's function (its logical id and the local runtime's lookup derive from it). */
export const routeFunctionId = (operationId: string): string => `Fn${operationId}`;
/** The construct id of a worker's function: `stream-processor` → `WorkerStreamProcessor`. */
export const workerFunctionId = (workerName: string): string => `Worker${workerName.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}`;

export interface CommerceFunctionProps {
  /** Handler module, relative to the repository root. */
  entry: string;
  timeoutSeconds: number;
  memoryMb: number;
  description: string;
  /** The resources and settings every function reads at cold start. */
  environment: Record<string, string>;
  /** Reserved (and so capped) concurrency; none for the API functions, which share the stage throttle. */
  reservedConcurrency?: number;
}

export class CommerceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: CommerceFunctionProps) {
    super(scope, id, {
      entry: join(repoRoot, props.entry),
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memoryMb,
      timeout: Duration.seconds(props.timeoutSeconds),
      description: props.description,
      environment: props.environment,
      ...(props.reservedConcurrency ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
      logGroup: new logs.LogGroup(scope, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
      loggingFormat: lambda.LoggingFormat.JSON,
      // X-Ray: the API's trace continues into the function (the correlation id joins the asynchronous rest).
      tracing: lambda.Tracing.ACTIVE,
      projectRoot: repoRoot,
      depsLockFilePath: join(repoRoot, 'package-lock.json'),
      bundling: {
        minify: BUNDLE_OPTIONS.minify,
        sourceMap: true,
        format: OutputFormat.ESM,
        target: BUNDLE_OPTIONS.target,
        mainFields: [...BUNDLE_OPTIONS.mainFields],
        externalModules: [...SDK_EXTERNAL_MODULES, ...(props.environment.TRACE_AWS_CALLS === 'true' ? [] : TRACING_MODULES)],
        banner: BUNDLE_OPTIONS.banner,
        esbuildArgs: Object.fromEntries(Object.entries(BUNDLE_OPTIONS.alias).map(([from, to]) => [`--alias:${from}`, to])),
        forceDockerBundling: false,
      },
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: "The AWS managed basic execution policy grants only writing to the function's logs.",
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'The project pins Node 22 (nodejs22.x) as its Lambda runtime and local runtime on purpose.',
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'xray:PutTraceSegments and xray:PutTelemetryRecords (active tracing) have no resource-level permissions, nor has dynamodb:ListStreams (stream readers); every other statement names its resources.',
    });
  }
}
