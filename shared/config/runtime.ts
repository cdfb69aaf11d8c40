/**
 * Runtime configuration, read and validated once per function instance (the composition
 * root). Nothing below this module reads `process.env`.
 */
/** Why a variable was refused: its name and what it must be (never its value, which may be a secret's path). */
export class RuntimeConfigError extends Error {
  constructor(variable: string, expected: string) {
    super(`environment variable ${variable} must be ${expected}`);
    this.name = 'RuntimeConfigError';
  }
}

type Env = Record<string, string | undefined>;

// A dozen lines instead of a schema library: every function parses its environment at its cold
// start, where zod's schema construction and parse cost milliseconds.
const text = (env: Env, name: string, fallback?: string): string => {
  const value = env[name] || fallback;
  if (value === undefined) throw new RuntimeConfigError(name, 'set');
  return value;
};
const optionalText = (env: Env, name: string): string | undefined => env[name] || undefined;
const flag = (env: Env, name: string): boolean => {
  const value = env[name] || 'false';
  if (value !== 'true' && value !== 'false') throw new RuntimeConfigError(name, '"true" or "false"');
  return value === 'true';
};
function number(env: Env, name: string, range: { min: number; max: number; integer?: boolean; above?: boolean }, fallback?: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    if (fallback === undefined) throw new RuntimeConfigError(name, 'set');
    return fallback;
  }
  const value = Number(raw);
  const { min, max, integer = false, above = false } = range;
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value)) || (above ? value <= min : value < min) || value > max)
    throw new RuntimeConfigError(name, `${integer ? 'an integer' : 'a number'} ${above ? 'above' : 'from'} ${min} ${above ? 'and at most' : 'to'} ${max}`);
  return value;
}

export type RuntimeConfig = {
  tableName: string;
  webhookQueueUrl: string;
  webhookDlqUrl: string;
  region: string;
  dynamodbEndpoint: string | undefined;
  sqsEndpoint: string | undefined;
  authCacheSeconds: number;
  webhookAllowPrivateUrls: boolean;
  /** The API reference page as partners open it: every problem links its code's entry there (`doc_url`). */
  referenceUrl: string | undefined;
  webhookBackoffScale: number;
  webhookTimeoutScale: number;
  /** Overrides every tenant's retry delay (the local runtime's tests only; a deployed stack never sets it). */
  callRetryDelaySeconds: number | undefined;
  variantIndexGraceSeconds: number;
  callPlatform: 'sandbox' | 'connect';
  /** The Amazon Connect instance and its flow, numbers and dial rate (CALL_PLATFORM=connect only). */
  connect: ConnectConfig | undefined;
  callStuckAfterSeconds: number | undefined;
  streamRecoverySeconds: number;
  queueRedeliveryGraceSeconds: number;
  webhookDisableAfterSeconds: number;
  traceAwsCalls: boolean;
  keySecretsKmsKeyId: string | undefined;
  keySecretsRootFile: string | undefined;
};

export interface ConnectConfig {
  instanceArn: string;
  /**
   * The flow every dial runs: only a function that dials has it (the dialog function, which the
   * flow invokes, cannot: the flow needs the function's ARN first).
   */
  contactFlowId: string | undefined;
  /** The claimed number each market's calls come from, by ISO country code. */
  callerIds: Record<string, string>;
  /** Campaign traffic (a service-quota approval) brings answering-machine detection. */
  campaignTraffic: boolean;
  /** Dials a second across every tenant: the account's StartOutboundVoiceContact quota. */
  dialsPerSecond: number;
  /** Live calls in flight at most, across every tenant: the instance's concurrent active calls quota (Connect's default: 10). */
  concurrentCalls: number;
  /** Locally: the stand-in that speaks Connect's protocol. */
  endpoint: string | undefined;
  /** The queue Connect's contact events arrive on (the contact-events worker hands an early one back to it). */
  contactEventsQueueUrl: string | undefined;
}

/** Amazon Connect's default quota of concurrent active calls per instance ("Amazon Connect service quotas"). */
export const DEFAULT_CONCURRENT_CALLS = 10;

/** An Amazon Connect instance's ARN, as the deployment (CDK context) and the functions (environment) both check it. */
export const CONNECT_INSTANCE_ARN = /^arn:aws[\w-]*:connect:[\w-]+:\d{12}:instance\/[\w-]+$/;

/**
 * Each market's claimed number by ISO country code, from JSON (or an object already parsed, as
 * CDK context may give it); undefined unless every entry is a country code and an E.164 number.
 */
export function parseCallerIds(raw: unknown): Record<string, string> | undefined {
  let parsed: unknown = raw;
  if (typeof raw === 'string') {
    try {
      parsed = JSON.parse(raw);
    } catch {
      return undefined;
    }
  }
  const entries = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.entries(parsed) : [];
  const valid =
    entries.length > 0 && entries.every(([country, number]) => /^[A-Z]{2}$/.test(country) && typeof number === 'string' && /^\+[1-9]\d{6,14}$/.test(number));
  return valid ? (Object.fromEntries(entries) as Record<string, string>) : undefined;
}

function callerIds(env: Env): Record<string, string> {
  const parsed = parseCallerIds(text(env, 'CONNECT_CALLER_IDS'));
  if (!parsed) throw new RuntimeConfigError('CONNECT_CALLER_IDS', 'a JSON object of ISO country codes to E.164 numbers, e.g. {"DE":"+4930123456"}');
  return parsed;
}

function connectConfig(env: Env): ConnectConfig {
  const instanceArn = text(env, 'CONNECT_INSTANCE_ARN');
  if (!CONNECT_INSTANCE_ARN.test(instanceArn)) throw new RuntimeConfigError('CONNECT_INSTANCE_ARN', 'an Amazon Connect instance ARN');
  return {
    instanceArn,
    contactFlowId: optionalText(env, 'CONNECT_CONTACT_FLOW_ID'),
    callerIds: callerIds(env),
    campaignTraffic: flag(env, 'CONNECT_CAMPAIGN_TRAFFIC'),
    dialsPerSecond: number(env, 'CONNECT_DIALS_PER_SECOND', { min: 1, max: 1000, integer: true }, 2),
    concurrentCalls: number(env, 'CONNECT_CONCURRENT_CALLS', { min: 1, max: 10_000, integer: true }, DEFAULT_CONCURRENT_CALLS),
    endpoint: optionalText(env, 'CONNECT_ENDPOINT'),
    contactEventsQueueUrl: optionalText(env, 'CONTACT_EVENTS_QUEUE_URL'),
  };
}

export function parseRuntimeConfig(env: Env): RuntimeConfig {
  const callPlatform = text(env, 'CALL_PLATFORM', 'sandbox');
  if (callPlatform !== 'sandbox' && callPlatform !== 'connect') throw new RuntimeConfigError('CALL_PLATFORM', '"sandbox" or "connect"');
  const stuckAfter = optionalText(env, 'CALL_STUCK_AFTER_SECONDS');
  return {
    tableName: text(env, 'TABLE_NAME'),
    webhookQueueUrl: text(env, 'WEBHOOK_QUEUE_URL', ''),
    webhookDlqUrl: text(env, 'WEBHOOK_DLQ_URL', ''),
    region: text(env, 'AWS_REGION', 'us-east-1'),
    /** Set only by the local runtime and tests: DynamoDB Local and the SQS emulator. */
    dynamodbEndpoint: optionalText(env, 'DYNAMODB_ENDPOINT'),
    sqsEndpoint: optionalText(env, 'SQS_ENDPOINT'),
    /** How long an API key or tenant configuration is cached in a function instance. */
    authCacheSeconds: number(env, 'AUTH_CACHE_SECONDS', { min: 0, max: 60, integer: true }, 30),
    webhookAllowPrivateUrls: flag(env, 'WEBHOOK_ALLOW_PRIVATE_URLS'),
    referenceUrl: optionalText(env, 'REFERENCE_URL'),
    webhookBackoffScale: number(env, 'WEBHOOK_BACKOFF_SCALE', { min: 0, max: 1, above: true }, 1),
    /** Shrinks the 5 s connect and 15 s total delivery timeouts, for tests only. */
    webhookTimeoutScale: number(env, 'WEBHOOK_TIMEOUT_SCALE', { min: 0, max: 1, above: true }, 1),
    callRetryDelaySeconds: env.CALL_RETRY_DELAY_SECONDS ? number(env, 'CALL_RETRY_DELAY_SECONDS', { min: 0, max: 86_400 }) : undefined,
    /** How long a new order waits for its variants to reach the variant index before it is rejected. */
    variantIndexGraceSeconds: number(env, 'VARIANT_INDEX_GRACE_SECONDS', { min: 0, max: 3600 }, 60),
    callPlatform,
    connect: callPlatform === 'connect' ? connectConfig(env) : undefined,
    /** Overrides the call platform's own longest call, after which an order still in a call is recovered. */
    callStuckAfterSeconds: stuckAfter === undefined ? undefined : number(env, 'CALL_STUCK_AFTER_SECONDS', { min: 10, max: 86_400, integer: true }),
    /**
     * How long stream-driven work (an order waiting in received or validated, an event's fan-out,
     * a page of a reaction job) may wait for its stream record before the sweeps do it themselves.
     */
    streamRecoverySeconds: number(env, 'STREAM_RECOVERY_SECONDS', { min: 1, max: 3600, integer: true }, 300),
    /** How long a record waits for the handling of its queue message before the reconciler sends the message again: the queue's visibility timeout (360 s) and a margin. */
    queueRedeliveryGraceSeconds: number(env, 'QUEUE_REDELIVERY_GRACE_SECONDS', { min: 1, max: 3600, integer: true }, 420),
    /** A subscription whose every delivery attempt failed for this long is disabled (Svix: 5 days). */
    webhookDisableAfterSeconds: number(env, 'WEBHOOK_DISABLE_AFTER_SECONDS', { min: 1, max: 90 * 86_400, integer: true }, 5 * 86_400),
    /** Deployed with `-c traceAwsCalls=true`: X-Ray subsegments for DynamoDB and SQS calls. */
    traceAwsCalls: flag(env, 'TRACE_AWS_CALLS'),
    /** Bench runs only: count DynamoDB calls and consumed capacity per request. */
    /** The KMS HMAC key API key secrets are derived with (API functions and the admin CLI on AWS). */
    keySecretsKmsKeyId: optionalText(env, 'KEY_SECRETS_KMS_KEY_ID'),
    /** Locally: the file holding the root key API key secrets are derived with. */
    keySecretsRootFile: optionalText(env, 'KEY_SECRETS_ROOT_FILE'),
  };
}

let cached: RuntimeConfig | undefined;
/** The instance's configuration, parsed from the environment on first use. */
export function runtimeConfig(): RuntimeConfig {
  cached ??= parseRuntimeConfig(process.env);
  return cached;
}
