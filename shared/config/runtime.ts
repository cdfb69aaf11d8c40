/**
 * Runtime configuration, read and validated once per function instance (the composition
 * root). Nothing below this module reads `process.env`.
 */
import * as z from 'zod';

const flag = z
  .enum(['true', 'false'])
  .default('false')
  .transform((v) => v === 'true');

const RuntimeEnv = z.object({
  TABLE_NAME: z.string().min(1),
  WEBHOOK_QUEUE_URL: z.string().default(''),
  WEBHOOK_DLQ_URL: z.string().default(''),
  AWS_REGION: z.string().default('us-east-1'),
  /** Set only by the local runtime and tests: DynamoDB Local and the SQS emulator. */
  DYNAMODB_ENDPOINT: z.string().optional(),
  SQS_ENDPOINT: z.string().optional(),
  /** How long an API key or tenant configuration is cached in a function instance. */
  AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(30),
  WEBHOOK_ALLOW_PRIVATE_URLS: flag,
  WEBHOOK_BACKOFF_SCALE: z.coerce.number().positive().max(1).default(1),
  /** Shrinks the 5 s connect and 15 s total delivery timeouts, for tests only. */
  WEBHOOK_TIMEOUT_SCALE: z.coerce.number().positive().max(1).default(1),
  CALL_RETRY_DELAY_SECONDS: z.coerce.number().min(0).default(2),
  /** How long a new order waits for its variants to reach the variant index before it is rejected. */
  VARIANT_INDEX_GRACE_SECONDS: z.coerce.number().min(0).max(3600).default(60),
  CALL_PLATFORM: z.enum(['sandbox']).default('sandbox'),
  /** Overrides the call platform's own longest call, after which an order still in a call is recovered. */
  CALL_STUCK_AFTER_SECONDS: z.coerce.number().int().min(10).max(86_400).optional(),
  /**
   * How long stream-driven work (an order waiting in received or validated, an event's fan-out,
   * a page of a reaction job) may wait for its stream record before the sweeps do it themselves.
   */
  STREAM_RECOVERY_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
  /** How long a record waits for the handling of its queue message before the reconciler sends the message again: the queue's visibility timeout (360 s) and a margin. */
  QUEUE_REDELIVERY_GRACE_SECONDS: z.coerce.number().int().min(1).max(3600).default(420),
  /** A subscription whose every delivery attempt failed for this long is disabled (Svix: 5 days). */
  /** Deployed with `-c traceAwsCalls=true`: X-Ray subsegments for DynamoDB and SQS calls. */
  TRACE_AWS_CALLS: flag,
  WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(90 * 86_400)
    .default(5 * 86_400),
  /** The KMS HMAC key API key secrets are derived with (API functions and the admin CLI on AWS). */
  KEY_SECRETS_KMS_KEY_ID: z.string().optional(),
  /** Locally: the file holding the root key API key secrets are derived with. */
  KEY_SECRETS_ROOT_FILE: z.string().optional(),
  /** Bench runs only: count DynamoDB calls and consumed capacity per request. */
  COST_METERING: flag,
});

export type RuntimeConfig = {
  tableName: string;
  webhookQueueUrl: string;
  webhookDlqUrl: string;
  region: string;
  dynamodbEndpoint: string | undefined;
  sqsEndpoint: string | undefined;
  authCacheSeconds: number;
  webhookAllowPrivateUrls: boolean;
  webhookBackoffScale: number;
  webhookTimeoutScale: number;
  callRetryDelaySeconds: number;
  variantIndexGraceSeconds: number;
  callPlatform: 'sandbox';
  callStuckAfterSeconds: number | undefined;
  streamRecoverySeconds: number;
  queueRedeliveryGraceSeconds: number;
  webhookDisableAfterSeconds: number;
  traceAwsCalls: boolean;
  costMetering: boolean;
  keySecretsKmsKeyId: string | undefined;
  keySecretsRootFile: string | undefined;
};

export function parseRuntimeConfig(env: Record<string, string | undefined>): RuntimeConfig {
  const e = RuntimeEnv.parse(env);
  return {
    tableName: e.TABLE_NAME,
    webhookQueueUrl: e.WEBHOOK_QUEUE_URL,
    webhookDlqUrl: e.WEBHOOK_DLQ_URL,
    region: e.AWS_REGION,
    dynamodbEndpoint: e.DYNAMODB_ENDPOINT,
    sqsEndpoint: e.SQS_ENDPOINT,
    authCacheSeconds: e.AUTH_CACHE_SECONDS,
    webhookAllowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS,
    webhookBackoffScale: e.WEBHOOK_BACKOFF_SCALE,
    webhookTimeoutScale: e.WEBHOOK_TIMEOUT_SCALE,
    callRetryDelaySeconds: e.CALL_RETRY_DELAY_SECONDS,
    variantIndexGraceSeconds: e.VARIANT_INDEX_GRACE_SECONDS,
    callPlatform: e.CALL_PLATFORM,
    callStuckAfterSeconds: e.CALL_STUCK_AFTER_SECONDS,
    streamRecoverySeconds: e.STREAM_RECOVERY_SECONDS,
    queueRedeliveryGraceSeconds: e.QUEUE_REDELIVERY_GRACE_SECONDS,
    webhookDisableAfterSeconds: e.WEBHOOK_DISABLE_AFTER_SECONDS,
    traceAwsCalls: e.TRACE_AWS_CALLS,
    costMetering: e.COST_METERING,
    keySecretsKmsKeyId: e.KEY_SECRETS_KMS_KEY_ID,
    keySecretsRootFile: e.KEY_SECRETS_ROOT_FILE,
  };
}

let cached: RuntimeConfig | undefined;
/** The instance's configuration, parsed from the environment on first use. */
export function runtimeConfig(): RuntimeConfig {
  cached ??= parseRuntimeConfig(process.env);
  return cached;
}
