import { describe, expect, it } from 'vitest';
import { parseRuntimeConfig, RuntimeConfigError } from '#shared/config/runtime.ts';

const CONNECT = {
  TABLE_NAME: 't',
  CALL_PLATFORM: 'connect',
  CONNECT_INSTANCE_ARN: 'arn:aws:connect:eu-central-1:123456789012:instance/0d0c4b8e-1111-2222-3333-444455556666',
  CONNECT_CONTACT_FLOW_ID: 'flow-1',
  CONNECT_CALLER_IDS: '{"DE":"+4930123456","AT":"+431234567"}',
};

describe('the runtime configuration read from the environment', () => {
  it('reads the Amazon Connect settings of a live deployment, with the documented dial rate', () => {
    expect(parseRuntimeConfig(CONNECT).connect).toEqual({
      instanceArn: CONNECT.CONNECT_INSTANCE_ARN,
      contactFlowId: 'flow-1',
      callerIds: { DE: '+4930123456', AT: '+431234567' },
      campaignTraffic: false,
      dialsPerSecond: 2,
      concurrentCalls: 10,
      endpoint: undefined,
      contactEventsQueueUrl: undefined,
    });
  });

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
      callRetryDelaySeconds: undefined,
      variantIndexGraceSeconds: 60,
      callPlatform: 'sandbox',
      connect: undefined,
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
    [{ TABLE_NAME: 't', CALL_PLATFORM: 'twilio' }, 'CALL_PLATFORM must be "sandbox" or "connect"'],
    [{ TABLE_NAME: 't', CALL_PLATFORM: 'connect' }, 'CONNECT_INSTANCE_ARN must be set'],
    [{ ...CONNECT, CONNECT_INSTANCE_ARN: 'inst-1' }, 'CONNECT_INSTANCE_ARN must be an Amazon Connect instance ARN'],
    [{ ...CONNECT, CONNECT_CALLER_IDS: '{"DE":"030 123"}' }, 'CONNECT_CALLER_IDS must be a JSON object of ISO country codes to E.164 numbers'],
    [{ ...CONNECT, CONNECT_CALLER_IDS: '[]' }, 'CONNECT_CALLER_IDS must be a JSON object of ISO country codes to E.164 numbers'],
    [{ ...CONNECT, CONNECT_DIALS_PER_SECOND: '0' }, 'CONNECT_DIALS_PER_SECOND must be an integer from 1 to 1000'],
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
