/** What the local runtime hands each function as its environment: its template's, AWS's stand-ins, and the runtime's knobs where they belong. */
import { describe, expect, it } from 'vitest';
import type { DeployedFunction, Deployment } from '#local/deployment.ts';
import { functionEnvironment, operatorEnvironment } from '#local/function-environment.ts';

const fn = (name: string, environment: Record<string, string>): DeployedFunction => ({
  name,
  logicalId: name,
  timeoutSeconds: 10,
  memoryMb: 256,
  environment,
  statements: [],
});
const api = fn('createOrder', {
  TABLE_NAME: 't',
  CALL_PLATFORM: 'connect',
  CONNECT_CONTACT_FLOW_ID: 'flow',
  KEY_SECRETS_KMS_KEY_ID: 'key',
  NODE_OPTIONS: '--enable-source-maps',
});
const dialog = fn('call-dialog', { TABLE_NAME: 't', CALL_PLATFORM: 'connect' });
const deployment = { functions: new Map([api, dialog].map((f) => [f.name, f])) } as unknown as Deployment;
const aws = { region: 'us-east-1', dynamodbEndpoint: 'http://127.0.0.1:1', sqsEndpoint: 'http://127.0.0.1:2', keyRootFile: '/tmp/root' };

describe("a function's local environment", () => {
  it("is its template's, with AWS's local stand-ins, and never another function's variable", () => {
    const env = functionEnvironment(dialog, deployment, aws, {});
    expect(env).toMatchObject({ TABLE_NAME: 't', CALL_PLATFORM: 'connect', DYNAMODB_ENDPOINT: aws.dynamodbEndpoint, AWS_LAMBDA_FUNCTION_NAME: 'call-dialog' });
    expect(env.CONNECT_CONTACT_FLOW_ID).toBeUndefined();
    // The root key answers only for a function given the KMS key; the Lambda runtime's own settings stay out.
    expect(env.KEY_SECRETS_ROOT_FILE).toBeUndefined();
    expect(functionEnvironment(api, deployment, aws, {})).toMatchObject({ KEY_SECRETS_ROOT_FILE: '/tmp/root' });
    expect(functionEnvironment(api, deployment, aws, {}).NODE_OPTIONS).toBeUndefined();
  });

  it('takes a knob no template names everywhere, and one a template names only where that template has it', () => {
    const knobs = { CALL_RETRY_DELAY_SECONDS: '1', CONNECT_CONTACT_FLOW_ID: 'other', CALL_PLATFORM: 'sandbox' };
    expect(functionEnvironment(dialog, deployment, aws, knobs)).toMatchObject({ CALL_RETRY_DELAY_SECONDS: '1', CALL_PLATFORM: 'sandbox' });
    expect(functionEnvironment(dialog, deployment, aws, knobs).CONNECT_CONTACT_FLOW_ID).toBeUndefined();
    expect(functionEnvironment(api, deployment, aws, knobs)).toMatchObject({ CONNECT_CONTACT_FLOW_ID: 'other' });
  });

  it("gives the operator's tools every function's variables together", () => {
    expect(operatorEnvironment(deployment)).toEqual({
      TABLE_NAME: 't',
      CALL_PLATFORM: 'connect',
      CONNECT_CONTACT_FLOW_ID: 'flow',
      KEY_SECRETS_KMS_KEY_ID: 'key',
    });
  });
});
