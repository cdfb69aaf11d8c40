import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addCommerceStack } from './commerce-app.ts';

const app = new App();
addCommerceStack(app);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
