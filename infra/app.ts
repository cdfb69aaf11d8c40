import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addCommerceStack, ContextError } from './commerce-app.ts';

const app = new App();
try {
  addCommerceStack(app);
} catch (error) {
  // A wrong -c value is the deployer's to fix: one line saying which and what it may be, no stack trace.
  if (!(error instanceof ContextError)) throw error;
  console.error(`cdk synth refused the context: ${error.message}`);
  process.exit(1);
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
