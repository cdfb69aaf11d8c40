/**
 * The stack as `cdk deploy` builds it from the app's context (`cdk.json` and `-c` values).
 * `infra/app.ts` synthesizes it for the CLI; the local runtime synthesizes the same stack to
 * run every function under the permissions and settings the template gives it.
 */
import type { App } from 'aws-cdk-lib';
import { CommerceInterfaceStack } from './stack.ts';

export const DEFAULT_STACK_NAME = 'CommerceInterface';

export function addCommerceStack(app: App): CommerceInterfaceStack {
  return new CommerceInterfaceStack(app, app.node.tryGetContext('stackName') ?? DEFAULT_STACK_NAME, {
    callPlatform: app.node.tryGetContext('callPlatform') ?? 'sandbox',
    traceAwsCalls: String(app.node.tryGetContext('traceAwsCalls') ?? 'false') === 'true',
    sourceMapsInStackTraces: String(app.node.tryGetContext('sourceMapsInStackTraces') ?? 'false') === 'true',
    runbookUrl: app.node.tryGetContext('runbookUrl'),
    description: 'Commerce Interface v1: partner API, single-table store, signed webhooks',
  });
}
