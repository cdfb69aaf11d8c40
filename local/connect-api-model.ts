/**
 * What Amazon Connect's API model says of the four requests the service makes, restated member
 * by member: which are required, and their types, lengths, ranges, patterns and values. Source:
 * AWS's Smithy model of Amazon Connect (`aws/api-models-aws`,
 * `connect/service/2017-08-08/connect-2017-08-08.json`, as published on 2 April 2025, shapes StartOutboundVoiceContactRequest,
 * StopContactRequest, DescribeContactRequest, UpdateContactAttributesRequest and their members'
 * targets; errors with their HTTP status), with `RingTimeoutInSeconds` (15 to 60) from the API
 * reference of StartOutboundVoiceContact, which the model snapshot read predates. Members the
 * service never sends (References, OutboundStrategy) are left out; like Connect, the stand-in
 * ignores a member it does not know. It refuses what the model refuses, with Connect's errors.
 */

export type MemberRule =
  | { type: 'string'; required?: boolean; length?: [number, number]; pattern?: RegExp; values?: readonly string[] }
  | { type: 'integer'; required?: boolean; range: [number, number] }
  | { type: 'boolean'; required?: boolean }
  | { type: 'map'; required?: boolean; keyLength: [number, number]; valueLength: [number, number] }
  | { type: 'structure'; required?: boolean; members: Readonly<Record<string, MemberRule>> };

const INSTANCE_ID: MemberRule = { type: 'string', required: true, length: [1, 100] };
const CONTACT_ID = (required: boolean): MemberRule => ({ type: 'string', required, length: [1, 256] });
/** `PhoneNumber`: E.164. */
const PHONE_NUMBER = (required: boolean): MemberRule => ({ type: 'string', required, pattern: /^\+[1-9]\d{1,14}$/ });
/** `Attributes`: names 1 to 32,767 characters, values up to 32,767. */
const ATTRIBUTES = (required: boolean): MemberRule => ({ type: 'map', required, keyLength: [1, 32_767], valueLength: [0, 32_767] });

export const CONNECT_OPERATIONS = {
  StartOutboundVoiceContact: {
    members: {
      Name: { type: 'string', length: [0, 1024] },
      Description: { type: 'string', length: [0, 4096] },
      RelatedContactId: CONTACT_ID(false),
      DestinationPhoneNumber: PHONE_NUMBER(true),
      ContactFlowId: { type: 'string', required: true, length: [0, 500] },
      InstanceId: INSTANCE_ID,
      ClientToken: { type: 'string', length: [0, 500] },
      SourcePhoneNumber: PHONE_NUMBER(false),
      QueueId: { type: 'string' },
      Attributes: ATTRIBUTES(false),
      AnswerMachineDetectionConfig: {
        type: 'structure',
        members: { EnableAnswerMachineDetection: { type: 'boolean' }, AwaitAnswerMachinePrompt: { type: 'boolean' } },
      },
      CampaignId: { type: 'string', length: [1, 100] },
      TrafficType: { type: 'string', values: ['GENERAL', 'CAMPAIGN'] },
      RingTimeoutInSeconds: { type: 'integer', range: [15, 60] },
    },
  },
  StopContact: {
    members: { ContactId: CONTACT_ID(true), InstanceId: INSTANCE_ID, DisconnectReason: { type: 'structure', members: { Code: { type: 'string' } } } },
  },
  DescribeContact: { members: { InstanceId: INSTANCE_ID, ContactId: CONTACT_ID(true) } },
  UpdateContactAttributes: { members: { InitialContactId: CONTACT_ID(true), InstanceId: INSTANCE_ID, Attributes: ATTRIBUTES(true) } },
} as const satisfies Record<string, { members: Readonly<Record<string, MemberRule>> }>;

export type ConnectOperation = keyof typeof CONNECT_OPERATIONS;

/** Connect's error shapes the stand-in answers with, and their HTTP status (the model's `smithy.api#httpError`). */
export const CONNECT_ERRORS = {
  InvalidParameterException: 400,
  InvalidRequestException: 400,
  DestinationNotAllowedException: 403,
  OutboundContactNotPermittedException: 403,
  ResourceNotFoundException: 404,
  ContactNotFoundException: 410,
  LimitExceededException: 429,
  ThrottlingException: 429,
} as const;

/** The first member of `input` the model refuses, said as Connect's InvalidParameterException would; undefined when it is valid. */
export function modelViolation(operation: ConnectOperation, input: Readonly<Record<string, unknown>>): string | undefined {
  return violationIn(CONNECT_OPERATIONS[operation].members, input, '');
}

function violationIn(members: Readonly<Record<string, MemberRule>>, input: Readonly<Record<string, unknown>>, prefix: string): string | undefined {
  for (const [name, rule] of Object.entries(members)) {
    const value = input[name];
    const at = `${prefix}${name}`;
    if (value === undefined || value === null) {
      if (rule.required) return `${at} is required`;
      continue;
    }
    const violation = memberViolation(rule, value, at);
    if (violation) return violation;
  }
  return undefined;
}

const lengthOf = (text: string) => [...text].length;
const within = (n: number, [min, max]: readonly [number, number]) => n >= min && n <= max;

function memberViolation(rule: MemberRule, value: unknown, at: string): string | undefined {
  switch (rule.type) {
    case 'string':
      if (typeof value !== 'string') return `${at} must be a string`;
      if (rule.length && !within(lengthOf(value), rule.length)) return `${at} must be ${rule.length[0]} to ${rule.length[1]} characters`;
      if (rule.pattern && !rule.pattern.test(value)) return `${at} must match ${rule.pattern.source}`;
      if (rule.values && !rule.values.includes(value)) return `${at} must be one of ${rule.values.join(', ')}`;
      return undefined;
    case 'integer':
      return Number.isInteger(value) && within(value as number, rule.range) ? undefined : `${at} must be an integer from ${rule.range[0]} to ${rule.range[1]}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${at} must be a boolean`;
    case 'map': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return `${at} must be a map`;
      for (const [key, item] of Object.entries(value)) {
        if (!within(lengthOf(key), rule.keyLength)) return `${at} key ${key.slice(0, 20)} must be ${rule.keyLength[0]} to ${rule.keyLength[1]} characters`;
        if (typeof item !== 'string' || !within(lengthOf(item), rule.valueLength))
          return `${at}.${key} must be a string of at most ${rule.valueLength[1]} characters`;
      }
      return undefined;
    }
    case 'structure':
      return value && typeof value === 'object' && !Array.isArray(value)
        ? violationIn(rule.members, value as Record<string, unknown>, `${at}.`)
        : `${at} must be a structure`;
  }
}
