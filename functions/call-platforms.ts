/**
 * The deployment's call platforms, built once per function instance: the sandbox's simulated
 * network always, and Amazon Connect where the stack is deployed with `-c callPlatform=connect`
 * (its client pointed at CONNECT_ENDPOINT locally, the stand-in that speaks Connect's protocol).
 */
import { ConnectClient } from '@aws-sdk/client-connect';
import { type CallPlatform, type CallPlatforms, sandboxDialer } from '#shared/calls/call-platform.ts';
import { dynamoCallSlots } from '#shared/calls/call-slots.ts';
import { CONNECT_LONGEST_CALL_SECONDS, connectCallPlatform } from '#shared/calls/connect/connect-platform.ts';
import { dynamoContactMap } from '#shared/calls/connect/contact-store.ts';
import { dynamoDialRate } from '#shared/calls/dial-rate.ts';
import { decorated, withoutSdkLogging } from '#shared/storage/clients.ts';
import { config } from './composition-root.ts';

/** CALL_STUCK_AFTER_SECONDS, where set, replaces every platform's longest call (tests, and an operator's override). */
const withStuckAfter = (platform: CallPlatform): CallPlatform =>
  config.callStuckAfterSeconds ? { ...platform, stuckAfterSeconds: config.callStuckAfterSeconds } : platform;

function connectPlatform(): CallPlatform | undefined {
  const settings = config.connect;
  if (!settings) return undefined;
  const clientOf = (maxAttempts?: number) =>
    decorated(
      'connect',
      withoutSdkLogging(
        new ConnectClient({ region: config.region, ...(settings.endpoint ? { endpoint: settings.endpoint } : {}), ...(maxAttempts ? { maxAttempts } : {}) }),
      ),
    );
  return connectCallPlatform(
    // One request per claimed dial: the SDK's retries would make one claimed dial up to three, past the dial rate.
    { dialer: clientOf(1), client: clientOf() },
    {
      instanceId: settings.instanceArn.split('/').at(-1)!,
      contactFlowId: settings.contactFlowId,
      callerIds: settings.callerIds,
      campaignTraffic: settings.campaignTraffic,
      stuckAfterSeconds: CONNECT_LONGEST_CALL_SECONDS,
    },
    dynamoContactMap,
  );
}

const live = connectPlatform();

export const platforms: CallPlatforms = { sandbox: withStuckAfter(sandboxDialer), live: live && withStuckAfter(live) };

/** The live platform's dial rate (Connect's StartOutboundVoiceContact quota), shared by every tenant. */
export const dialRate = config.connect ? dynamoDialRate(config.connect.dialsPerSecond) : undefined;
/** The live platform's places for calls in flight (Connect's concurrent active calls per instance), each held at most a call's longest. */
export const callSlots = config.connect ? dynamoCallSlots(config.connect.concurrentCalls, CONNECT_LONGEST_CALL_SECONDS) : undefined;
