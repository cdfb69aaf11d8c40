/**
 * The stack as `cdk deploy` builds it from the app's context (`cdk.json` and `-c` values).
 * `infra/app.ts` synthesizes it for the CLI; the local runtime synthesizes the same stack to
 * run every function under the permissions and settings the template gives it.
 */
import type { App } from 'aws-cdk-lib';
import { CONNECT_INSTANCE_ARN, DEFAULT_CONCURRENT_CALLS, parseCallerIds } from '#shared/config/runtime.ts';
import type { LiveCallSettings } from './parts/live-calls.ts';
import { CommerceInterfaceStack } from './stack.ts';

export const DEFAULT_STACK_NAME = 'CommerceInterface';

/** A context value deployed wrongly is refused at synth, in one line naming what it may be. */
export class ContextError extends Error {
  override readonly name = 'ContextError';
}

function flagOf(app: App, name: string): boolean {
  const value = String(app.node.tryGetContext(name) ?? 'false');
  if (value !== 'true' && value !== 'false') throw new ContextError(`-c ${name} must be "true" or "false", not "${value}"`);
  return value === 'true';
}

export function addCommerceStack(app: App): CommerceInterfaceStack {
  const stackName = String(app.node.tryGetContext('stackName') ?? DEFAULT_STACK_NAME);
  if (!/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(stackName))
    throw new ContextError(`-c stackName must be a CloudFormation stack name (a letter, then letters, digits and hyphens), not "${stackName}"`);
  return new CommerceInterfaceStack(app, stackName, {
    ...callPlatformOf(app),
    traceAwsCalls: flagOf(app, 'traceAwsCalls'),
    sourceMapsInStackTraces: flagOf(app, 'sourceMapsInStackTraces'),
    runbookUrl: app.node.tryGetContext('runbookUrl'),
    referenceUrl: referenceUrlOf(app),
    description: 'Commerce Interface v1: partner API, single-table store, signed webhooks',
  });
}

/** The reference page's address, if given: an https URL (problems link into it), refused at synth otherwise. */
function referenceUrlOf(app: App): string | undefined {
  const value = app.node.tryGetContext('referenceUrl');
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^https:\/\/[^\s#]+$/.test(value))
    throw new ContextError(`-c referenceUrl must be an https URL without a fragment, not "${String(value)}"`);
  return value;
}

/** Refuses at synth what would deploy a stack whose every call fails: an unknown platform, or Connect without its instance and numbers. */
export function callPlatformOf(app: App): { callPlatform: 'sandbox' | 'connect'; connect?: LiveCallSettings } {
  const context = (name: string): unknown => app.node.tryGetContext(name);
  const platform = String(context('callPlatform') ?? 'sandbox');
  if (platform === 'sandbox') return { callPlatform: 'sandbox' };
  if (platform !== 'connect') throw new ContextError(`-c callPlatform must be "sandbox" or "connect", not "${platform}"`);
  const instanceArn = String(context('connectInstanceArn') ?? '');
  if (!CONNECT_INSTANCE_ARN.test(instanceArn))
    throw new ContextError('-c callPlatform=connect needs -c connectInstanceArn=arn:aws:connect:<region>:<account>:instance/<id>');
  // The region the CLI deploys to, where it knows it (its profile's): contact events arrive only in the instance's (CloudFormation checks it again).
  const instanceRegion = instanceArn.split(':')[3];
  const deployRegion = context('region') ?? process.env.CDK_DEFAULT_REGION;
  if (deployRegion && deployRegion !== instanceRegion)
    throw new ContextError(
      `the Amazon Connect instance is in ${instanceRegion}: deploy the stack there (its contact events arrive only in that region), not in ${String(deployRegion)}`,
    );
  const callerIds = parseCallerIds(context('connectCallerIds'));
  if (!callerIds) throw new ContextError('-c callPlatform=connect needs -c connectCallerIds=\'{"DE":"+4930…"}\': each market\'s claimed number in E.164');
  const dialsPerSecond = Number(context('connectDialsPerSecond') ?? 2);
  if (!Number.isInteger(dialsPerSecond) || dialsPerSecond < 1 || dialsPerSecond > 1000)
    throw new ContextError('-c connectDialsPerSecond must be an integer from 1 to 1000');
  const concurrentCalls = Number(context('connectConcurrentCalls') ?? DEFAULT_CONCURRENT_CALLS);
  if (!Number.isInteger(concurrentCalls) || concurrentCalls < 1 || concurrentCalls > 10_000)
    throw new ContextError("-c connectConcurrentCalls must be an integer from 1 to 10000 (the instance's concurrent active calls quota)");
  return {
    callPlatform: 'connect',
    connect: {
      instanceArn,
      callerIds,
      campaignTraffic: String(context('connectCampaignTraffic') ?? 'false') === 'true',
      dialsPerSecond,
      concurrentCalls,
    },
  };
}
