/**
 * The synthesized template's resources held to CloudFormation's own resource schemas before any
 * `cdk deploy`: every resource of every type the stack uses, in both its forms (sandbox, live
 * calls), validated with a JSON Schema validator (ajv) against the schema of its type. The
 * schemas come from AWS's service specification (`@aws-cdk/aws-service-spec`, the database the
 * CDK builds from the CloudFormation registry schemas): properties, their types, required
 * properties and allowed values. It leaves out lengths and patterns, so those of the resources
 * whose names the stack makes are added from the CloudFormation template reference
 * (AWS::Connect::ContactFlow: Name 1 to 127, Description up to 500, Content 1 to 256,000).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { Ajv } from 'ajv';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { addCommerceStack } from '#infra/commerce-app.ts';

interface SpecType {
  type: string;
  element?: SpecType;
  types?: SpecType[];
  allowedValues?: string[];
  reference?: { $ref: string };
}
interface SpecProperty {
  type: SpecType;
  required?: boolean;
}
interface SpecEntity {
  $id: string;
  cloudFormationType?: string;
  properties: Record<string, SpecProperty>;
}

const specFile = createRequire(import.meta.url).resolve('@aws-cdk/aws-service-spec/db.json.gz');
const db = JSON.parse(gunzipSync(readFileSync(specFile)).toString('utf8')) as {
  schema: { resource: { entities: SpecEntity[] }; typeDefinition: { entities: SpecEntity[] } };
};
const resourceSpecs = new Map(db.schema.resource.entities.map((r) => [r.cloudFormationType!, r]));
const typeSpecs = new Map(db.schema.typeDefinition.entities.map((t) => [t.$id, t]));

/** Lengths the specification leaves out, from the CloudFormation template reference of each type. */
const LENGTHS: Record<string, Record<string, { minLength?: number; maxLength: number }>> = {
  'AWS::Connect::ContactFlow': { Name: { minLength: 1, maxLength: 127 }, Description: { maxLength: 500 }, Content: { minLength: 1, maxLength: 256_000 } },
};

/** A value CloudFormation resolves at deploy time (Ref, Fn::GetAtt, Fn::Join, …): any type's value may be one. */
const INTRINSIC = { type: 'object', minProperties: 1, maxProperties: 1, propertyNames: { pattern: '^(Ref|Fn::[A-Za-z]+|Condition)$' } };

function schemaOfType(type: SpecType, seen: Set<string>): object {
  const typed = ((): object => {
    switch (type.type) {
      case 'string':
        return type.allowedValues ? { type: 'string', enum: type.allowedValues } : { type: 'string' };
      case 'integer':
        return { type: ['integer', 'string'], pattern: '^-?\\d+$' };
      case 'number':
        return { type: ['number', 'string'] };
      case 'boolean':
        return { type: ['boolean', 'string'], enum: [true, false, 'true', 'false'] };
      case 'json':
        return {};
      case 'tag':
        return { type: 'object', required: ['Key', 'Value'], properties: { Key: { type: 'string' }, Value: {} } };
      case 'array':
        return { type: 'array', items: schemaOfType(type.element!, seen) };
      case 'map':
        return { type: 'object', additionalProperties: schemaOfType(type.element!, seen) };
      case 'union':
        return { anyOf: type.types!.map((t) => schemaOfType(t, seen)) };
      case 'ref': {
        const id = type.reference!.$ref;
        // A type that contains itself is checked one level deep.
        if (seen.has(id)) return {};
        return schemaOfProperties(typeSpecs.get(id)!.properties, new Set([...seen, id]));
      }
      default:
        throw new Error(`the service specification has a property type ${type.type} this test does not read`);
    }
  })();
  return { anyOf: [typed, INTRINSIC] };
}

function schemaOfProperties(properties: Record<string, SpecProperty>, seen: Set<string>, lengths: Record<string, object> = {}): object {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.entries(properties)
      .filter(([, p]) => p.required)
      .map(([name]) => name),
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, p]) => [
        name,
        lengths[name] ? { allOf: [schemaOfType(p.type, seen), { anyOf: [{ type: 'object' }, lengths[name]] }] } : schemaOfType(p.type, seen),
      ]),
    ),
  };
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
function validatorOf(resourceType: string) {
  if (!validators.has(resourceType)) {
    const spec = resourceSpecs.get(resourceType);
    if (!spec) throw new Error(`${resourceType} is no CloudFormation resource type`);
    validators.set(resourceType, ajv.compile(schemaOfProperties(spec.properties, new Set(), LENGTHS[resourceType] ?? {})));
  }
  return validators.get(resourceType)!;
}

/** Each resource's refusals, as `LogicalId (Type): /path message`. */
function violations(template: Record<string, { Type: string; Properties?: object }>): string[] {
  return Object.entries(template).flatMap(([id, resource]) => {
    // Custom resources carry properties of their own handler's choosing.
    if (resource.Type.startsWith('Custom::') || resource.Type === 'AWS::CloudFormation::CustomResource') return [];
    const validate = validatorOf(resource.Type);
    return validate(resource.Properties ?? {})
      ? []
      : (validate.errors ?? []).map((e: { instancePath: string; message?: string }) => `${id} (${resource.Type}): ${e.instancePath} ${e.message}`);
  });
}

const LIVE = {
  callPlatform: 'connect',
  connectInstanceArn: 'arn:aws:connect:eu-central-1:123456789012:instance/0d0c4b8e-1111-2222-3333-444455556666',
  connectCallerIds: '{"DE":"+4930123456","AT":"+431234567"}',
};
const synth = (context: Record<string, unknown>) =>
  Template.fromStack(addCommerceStack(new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } }))).toJSON().Resources as Record<
    string,
    { Type: string; Properties?: object }
  >;

let sandbox: ReturnType<typeof synth>;
let live: ReturnType<typeof synth>;
beforeAll(() => {
  sandbox = synth({});
  live = synth({ ...LIVE, stackName: `Commerce-${'x'.repeat(119)}` });
});

describe("the template against CloudFormation's resource schemas", () => {
  it('has every resource valid for its type, in a sandbox deployment and one with live calls (with a stack name at its longest)', () => {
    expect(Object.keys(sandbox).length).toBeGreaterThan(100);
    expect(violations(sandbox)).toEqual([]);
    expect(violations(live)).toEqual([]);
    expect(new Set(Object.values(live).map((r) => r.Type))).toContain('AWS::Connect::ContactFlow');
  });

  it('sees a resource its schema refuses (the check is not vacuous)', () => {
    const [id, flow] = Object.entries(live).find(([, r]) => r.Type === 'AWS::Connect::ContactFlow')!;
    const refused = (properties: object) => violations({ [id]: { ...flow, Properties: { ...flow.Properties, ...properties } } });
    expect(refused({ Name: 'x'.repeat(128) })).not.toEqual([]);
    expect(refused({ Type: 'NOT_A_FLOW_TYPE' })).not.toEqual([]);
    expect(refused({ Colour: 'blue' })).not.toEqual([]);
    expect(violations({ [id]: { Type: flow.Type, Properties: { Name: 'n', Type: 'CONTACT_FLOW', Content: '{}' } } })).not.toEqual([]);
  });
});
