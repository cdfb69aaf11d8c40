/**
 * Every synthesized function's own environment, as Lambda will hand it to the function, read by
 * the very parser the function runs at its cold start: a variable the code needs and the
 * template does not give a function fails here, not at the first live call. The template's
 * references (a queue's URL, the flow's id) become placeholders: only their presence is known at synth.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { addCommerceStack } from '#infra/commerce-app.ts';
import { parseRuntimeConfig, RuntimeConfigError } from '#shared/config/runtime.ts';

const LIVE = {
  callPlatform: 'connect',
  connectInstanceArn: 'arn:aws:connect:eu-central-1:123456789012:instance/0d0c4b8e-1111-2222-3333-444455556666',
  connectCallerIds: '{"DE":"+4930123456","AT":"+431234567"}',
};

type Value = string | number | boolean | Record<string, unknown>;
/** A literal as it is; a reference (Ref, Fn::GetAtt, Fn::Select, Fn::Join) as a placeholder standing for what AWS resolves it to. */
const placeholder = (name: string, value: Value) => (typeof value === 'object' ? `resolved-by-cloudformation-${name.toLowerCase()}` : String(value));

const synthesized = new Map<string, Map<string, Record<string, string>>>();
/** Each function's environment by its logical id, of the stack synthesized once per context. */
function functionEnvironments(context: Record<string, unknown>): Map<string, Record<string, string>> {
  const key = JSON.stringify(context);
  if (!synthesized.has(key)) synthesized.set(key, synthesize(context));
  return synthesized.get(key)!;
}

function synthesize(context: Record<string, unknown>): Map<string, Record<string, string>> {
  const template = Template.fromStack(addCommerceStack(new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } })));
  const functions = Object.entries(template.findResources('AWS::Lambda::Function')) as [string, { Properties: Record<string, unknown> }][];
  return new Map(
    functions.map(([id, fn]) => {
      const variables = ((fn.Properties.Environment as { Variables?: Record<string, Value> } | undefined)?.Variables ?? {}) as Record<string, Value>;
      // Lambda sets AWS_REGION in every function's environment itself.
      return [id, { AWS_REGION: 'eu-central-1', ...Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, placeholder(name, value)])) }];
    }),
  );
}

describe("every function's own environment", () => {
  for (const [deployment, context] of [
    ['sandbox', {}],
    ['live calls', LIVE],
  ] as const) {
    it(`is one its function starts with (${deployment})`, () => {
      const environments = functionEnvironments(context);
      expect(environments.size).toBeGreaterThan(30);
      for (const [id, env] of environments) expect(() => parseRuntimeConfig(env), id).not.toThrow();
    });
  }

  it('gives the flow id to every function that dials, and the dialog function (which the flow invokes) none', () => {
    const environments = functionEnvironments(LIVE);
    const [dialog, ...others] = [...environments].sort(([a]) => (a.startsWith('WorkerCallDialog') ? -1 : 1));
    expect(dialog![1].CONNECT_CONTACT_FLOW_ID).toBeUndefined();
    expect(parseRuntimeConfig(dialog![1]).connect).toMatchObject({ contactFlowId: undefined });
    for (const [id, env] of others) expect(parseRuntimeConfig(env).connect?.contactFlowId, id).toBeDefined();
  });

  it('fails to parse an environment that lacks what the code needs (the check is not vacuous)', () => {
    const env = [...functionEnvironments(LIVE).values()][0]!;
    const { TABLE_NAME: _table, ...withoutTable } = env;
    expect(() => parseRuntimeConfig(withoutTable)).toThrow(RuntimeConfigError);
    expect(() => parseRuntimeConfig({ ...env, CONNECT_INSTANCE_ARN: '' })).toThrow(/CONNECT_INSTANCE_ARN/);
  });
});
