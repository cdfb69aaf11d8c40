import { describe, expect, it } from 'vitest';
import { parseRuntimeConfig, RuntimeConfigError } from '#shared/config/runtime.ts';

describe('the runtime configuration read from the environment', () => {
  it('keeps the documented defaults when only the table is named', () => {
    expect(parseRuntimeConfig({ TABLE_NAME: 't' })).toEqual({
      tableName: 't',
      webhookQueueUrl: '',
      webhookDlqUrl: '',
      region: 'us-east-1',
      dynamodbEndpoint: undefined,
      sqsEndpoint: undefined,
      authCacheSeconds: 30,
      webhookAllowPrivateUrls: false,
      webhookBackoffScale: 1,
      webhookTimeoutScale: 1,
      callRetryDelaySeconds: 2,
      variantIndexGraceSeconds: 60,
      callPlatform: 'sandbox',
      callStuckAfterSeconds: undefined,
      streamRecoverySeconds: 300,
      queueRedeliveryGraceSeconds: 420,
      webhookDisableAfterSeconds: 432_000,
      traceAwsCalls: false,
      keySecretsKmsKeyId: undefined,
      keySecretsRootFile: undefined,
    });
  });

  it('reads what is set', () => {
    const config = parseRuntimeConfig({
      TABLE_NAME: 't',
      AWS_REGION: 'eu-central-1',
      AUTH_CACHE_SECONDS: '0',
      WEBHOOK_BACKOFF_SCALE: '0.01',
      CALL_STUCK_AFTER_SECONDS: '90',
      TRACE_AWS_CALLS: 'true',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
    });
    expect(config).toMatchObject({
      region: 'eu-central-1',
      authCacheSeconds: 0,
      webhookBackoffScale: 0.01,
      callStuckAfterSeconds: 90,
      traceAwsCalls: true,
      dynamodbEndpoint: 'http://127.0.0.1:8000',
    });
  });

  it.each([
    [{}, 'TABLE_NAME must be set'],
    [{ TABLE_NAME: '' }, 'TABLE_NAME must be set'],
    [{ TABLE_NAME: 't', AUTH_CACHE_SECONDS: '61' }, 'AUTH_CACHE_SECONDS must be an integer from 0 to 60'],
    [{ TABLE_NAME: 't', AUTH_CACHE_SECONDS: '1.5' }, 'AUTH_CACHE_SECONDS must be an integer from 0 to 60'],
    [{ TABLE_NAME: 't', AUTH_CACHE_SECONDS: 'soon' }, 'AUTH_CACHE_SECONDS must be an integer from 0 to 60'],
    [{ TABLE_NAME: 't', WEBHOOK_BACKOFF_SCALE: '0' }, 'WEBHOOK_BACKOFF_SCALE must be a number above 0 and at most 1'],
    [{ TABLE_NAME: 't', CALL_STUCK_AFTER_SECONDS: '5' }, 'CALL_STUCK_AFTER_SECONDS must be an integer from 10 to 86400'],
    [{ TABLE_NAME: 't', TRACE_AWS_CALLS: 'yes' }, 'TRACE_AWS_CALLS must be "true" or "false"'],
    [{ TABLE_NAME: 't', CALL_PLATFORM: 'twilio' }, 'CALL_PLATFORM must be "sandbox"'],
  ])('refuses %j, naming the variable and what it must be', (env, message) => {
    expect(() => parseRuntimeConfig(env)).toThrow(RuntimeConfigError);
    expect(() => parseRuntimeConfig(env)).toThrow(`environment variable ${message}`);
  });

  it('never echoes a refused value', () => {
    expect(() => parseRuntimeConfig({ TABLE_NAME: 't', AUTH_CACHE_SECONDS: 'sk_live_secret' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('sk_live_secret') }),
    );
  });
});
