import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CommerceInterfaceStack } from './stack.ts';

const app = new App();
new CommerceInterfaceStack(app, app.node.tryGetContext('stackName') ?? 'CommerceInterface', {
  callPlatform: app.node.tryGetContext('callPlatform') ?? 'sandbox',
  traceAwsCalls: String(app.node.tryGetContext('traceAwsCalls') ?? 'false') === 'true',
  runbookUrl: app.node.tryGetContext('runbookUrl'),
  description: 'Commerce Interface v1: partner API, single-table store, signed webhooks',
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
