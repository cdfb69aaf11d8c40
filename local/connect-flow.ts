/**
 * A small interpreter of Amazon Connect's flow language, for exactly the actions the deployed
 * flow uses (shared/calls/connect/contact-flow.ts), with the semantics the flow language
 * reference and the admin guide give them:
 * - InvokeLambdaFunction: the function's STRING_MAP answer becomes `$.External`; a failure or
 *   another shape takes NoMatchingError;
 * - GetParticipantInput with stored input: an interruptible prompt, the key in
 *   `$.StoredCustomerInput`, and silence on the Success branch with the value `Timeout`;
 * - UpdateContactTextToSpeechVoice: a static Polly voice; until it runs, Joanna (en-US) speaks;
 * - CheckOutboundCallStatus: campaign traffic only, answering-machine detection's verdict as its result;
 * - Compare (Equals), MessageParticipant, DisconnectParticipant.
 * `publishedFlow` refuses a flow Connect refuses to publish (an action type it does not have, an
 * error branch the action cannot take, a transition to an action that does not exist, a dynamic
 * voice); any other action type fails loudly, so the interpreter cannot drift from the flow.
 */
import type { ConnectContactFlowEvent } from 'aws-lambda';

interface Transitions {
  NextAction?: string;
  Conditions?: { NextAction: string; Condition: { Operator: string; Operands: string[] } }[];
  Errors?: { NextAction: string; ErrorType: string }[];
}
interface FlowAction {
  Identifier: string;
  Type: string;
  Parameters: Record<string, unknown>;
  Transitions: Transitions;
}
export interface FlowDocument {
  StartAction: string;
  Actions: FlowAction[];
}

/** Answering-machine detection's verdict as CheckOutboundCallStatus reports it. */
export type CallStatus = 'CallAnswered' | 'VoicemailBeep' | 'VoicemailNoBeep' | 'NotDetected';

/** What a run of the flow is connected to: the dialog function, the customer, and whether the contact was stopped. */
export interface FlowParty {
  /** Invokes the function Connect would (the ARN is the flow's), with the event Connect sends. */
  invoke(functionArn: string, event: ConnectContactFlowEvent, timeLimitMs: number): Promise<unknown>;
  /** The contact's data as Connect passes it to a function (without Parameters). */
  contactData: ConnectContactFlowEvent['Details']['ContactData'];
  /**
   * Says `text` in `voice` and waits for one key (null: none within `timeoutSeconds`); a key may
   * come while it is being said. `external` is the function's last answer.
   */
  input(text: string, voice: string, timeoutSeconds: number, external: Readonly<Record<string, string>>): Promise<string | null>;
  say(text: string, voice: string): Promise<void>;
  /** Campaign traffic: answering-machine detection's verdict; undefined for general traffic (CheckOutboundCallStatus is not allowed). */
  callStatus: CallStatus | undefined;
  /** True once the contact was stopped (StopContact): the run ends at the next action. */
  stopped(): boolean;
}

/** The most actions one run takes: the flow's loop ends within a handful of turns, so more is a defect. */
const MAX_STEPS = 100;
/** Connect's voice for text-to-speech until the flow sets another (UpdateContactTextToSpeechVoice reference). */
export const DEFAULT_VOICE = 'Joanna';
/** The value stored input holds when nothing was pressed in time (admin guide, "Store customer input"). */
const STORED_TIMEOUT = 'Timeout';
/** Amazon Polly's neural voices the flow may name (Polly developer guide, "Available voices"): a misspelt voice silences the call. */
const NEURAL_VOICES = new Set([
  'Joanna',
  'Matthew',
  'Ruth',
  'Danielle',
  'Kendra',
  'Kimberly',
  'Salli',
  'Joey',
  'Justin',
  'Kevin',
  'Ivy',
  'Vicki',
  'Daniel',
  'Hannelore',
  'Amy',
  'Brian',
  'Emma',
  'Arthur',
]);

/** The error branches each action may have, and those it must (flow language reference, each action's "Errors"). */
const ERRORS: Record<string, (p: Record<string, unknown>) => { allowed: string[]; required: string[] }> = {
  InvokeLambdaFunction: () => ({ allowed: ['NoMatchingError'], required: ['NoMatchingError'] }),
  Compare: () => ({ allowed: ['NoMatchingCondition'], required: ['NoMatchingCondition'] }),
  GetParticipantInput: (p) =>
    p.StoreInput === 'True'
      ? { allowed: ['NoMatchingError', ...(hasPhoneValidation(p) ? ['InvalidPhoneNumber'] : [])], required: ['NoMatchingError'] }
      : { allowed: ['NoMatchingError', 'NoMatchingCondition', 'InputTimeLimitExceeded'], required: ['NoMatchingError'] },
  MessageParticipant: () => ({ allowed: ['NoMatchingError'], required: [] }),
  UpdateContactTextToSpeechVoice: () => ({ allowed: [], required: [] }),
  CheckOutboundCallStatus: () => ({ allowed: ['NoMatchingError'], required: ['NoMatchingError'] }),
  DisconnectParticipant: () => ({ allowed: [], required: [] }),
};
const hasPhoneValidation = (p: Record<string, unknown>) =>
  Boolean((p.InputValidation as { PhoneNumberValidation?: unknown } | undefined)?.PhoneNumberValidation);

export class FlowInterpreterError extends Error {
  override readonly name = 'FlowInterpreterError';
}

/** Connect's checks when the flow is published (CreateContactFlow / the CloudFormation resource): the flow, or the reason it is refused. */
export function publishedFlow(flow: FlowDocument): FlowDocument {
  const ids = new Set(flow.Actions.map((a) => a.Identifier));
  const refuse = (why: string) => {
    throw new FlowInterpreterError(`Connect would refuse to publish this flow: ${why}`);
  };
  if (!ids.has(flow.StartAction)) refuse(`it starts at ${flow.StartAction}, which it does not have`);
  for (const action of flow.Actions) {
    const errors = ERRORS[action.Type]?.(action.Parameters);
    if (!errors) refuse(`${action.Identifier} is a ${action.Type}, which the stand-in does not know`);
    const declared = (action.Transitions.Errors ?? []).map((e) => e.ErrorType);
    for (const type of declared) if (!errors!.allowed.includes(type)) refuse(`${action.Identifier} (${action.Type}) cannot take a ${type} branch`);
    for (const type of errors!.required) if (!declared.includes(type)) refuse(`${action.Identifier} (${action.Type}) needs a ${type} branch`);
    const targets = [
      action.Transitions.NextAction,
      ...(action.Transitions.Conditions ?? []).map((c) => c.NextAction),
      ...(action.Transitions.Errors ?? []).map((e) => e.NextAction),
    ];
    for (const target of targets) if (target !== undefined && !ids.has(target)) refuse(`${action.Identifier} goes to ${target}, which the flow does not have`);
    for (const condition of action.Transitions.Conditions ?? [])
      if (condition.Condition.Operator !== 'Equals') refuse(`${action.Identifier} compares with ${condition.Condition.Operator}; only Equals is interpreted`);
    checkParameters(action, refuse);
  }
  return flow;
}

function checkParameters(action: FlowAction, refuse: (why: string) => never): void {
  const p = action.Parameters;
  const id = action.Identifier;
  const dynamic = (value: unknown) => typeof value === 'string' && value.startsWith('$.');
  if (action.Type === 'InvokeLambdaFunction') {
    const limit = Number(p.InvocationTimeLimitSeconds);
    if (!(Number.isInteger(limit) && limit >= 1 && limit <= 8)) refuse(`${id}: InvocationTimeLimitSeconds must be 1 to 8`);
  }
  if (action.Type === 'GetParticipantInput') {
    const timeout = Number(p.InputTimeLimitSeconds);
    if (dynamic(p.InputTimeLimitSeconds) || !(Number.isInteger(timeout) && timeout > 0))
      refuse(`${id}: InputTimeLimitSeconds must be a static whole number above 0`);
    if (p.StoreInput !== 'True' && p.StoreInput !== 'False' && p.StoreInput !== undefined) refuse(`${id}: StoreInput must be "True" or "False"`);
    if ((p.StoreInput === 'True') !== (p.InputValidation !== undefined)) refuse(`${id}: InputValidation is required if and only if StoreInput is "True"`);
    if (p.StoreInput === 'True' && action.Transitions.Conditions?.length) refuse(`${id}: stored input supports no conditions`);
  }
  if (action.Type === 'UpdateContactTextToSpeechVoice') {
    if (dynamic(p.TextToSpeechVoice) || dynamic(p.TextToSpeechEngine)) refuse(`${id}: the voice and its engine must be static`);
    if (p.TextToSpeechEngine === 'neural' && !NEURAL_VOICES.has(String(p.TextToSpeechVoice)))
      refuse(`${id}: ${String(p.TextToSpeechVoice)} is no neural voice`);
  }
}

const isStringMap = (value: unknown): value is Record<string, string> =>
  !!value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');

export async function runFlow(flow: FlowDocument, party: FlowParty): Promise<{ steps: number }> {
  publishedFlow(flow);
  const byId = new Map(flow.Actions.map((a) => [a.Identifier, a]));
  let external: Record<string, string> = {};
  let stored = '';
  let voice = DEFAULT_VOICE;
  const resolve = (value: unknown): string => {
    const text = String(value ?? '');
    if (text === '$.StoredCustomerInput') return stored;
    const path = /^\$\.External\.(\w+)$/.exec(text);
    if (path) return external[path[1]!] ?? '';
    if (text.startsWith('$.')) throw new FlowInterpreterError(`the flow reads ${text}, which the interpreter does not know`);
    return text;
  };
  const errorNext = (action: FlowAction, type: string) => action.Transitions.Errors!.find((e) => e.ErrorType === type)!.NextAction;
  const matching = (action: FlowAction, value: string) => action.Transitions.Conditions?.find((c) => c.Condition.Operands.includes(value))?.NextAction;
  let id: string | undefined = flow.StartAction;
  for (let steps = 0; id; steps++) {
    if (steps >= MAX_STEPS) throw new FlowInterpreterError(`the flow ran ${MAX_STEPS} actions without ending`);
    if (party.stopped()) return { steps };
    const action: FlowAction = byId.get(id)!;
    const p = action.Parameters;
    switch (action.Type) {
      case 'InvokeLambdaFunction': {
        const attributes = Object.fromEntries(Object.entries((p.LambdaInvocationAttributes ?? {}) as Record<string, string>).map(([k, v]) => [k, resolve(v)]));
        const event: ConnectContactFlowEvent = { Name: 'ContactFlowEvent', Details: { ContactData: party.contactData, Parameters: attributes } };
        const answer = await party.invoke(String(p.LambdaFunctionARN), event, Number(p.InvocationTimeLimitSeconds) * 1000).catch(() => undefined);
        if (!isStringMap(answer)) {
          id = errorNext(action, 'NoMatchingError');
          break;
        }
        external = answer;
        id = action.Transitions.NextAction;
        break;
      }
      case 'Compare':
        id = matching(action, resolve(p.ComparisonValue)) ?? errorNext(action, 'NoMatchingCondition');
        break;
      case 'GetParticipantInput': {
        const key = await party.input(resolve(p.Text), voice, Number(p.InputTimeLimitSeconds), external);
        if (p.StoreInput === 'True') {
          // Stored input: silence is the Success branch, holding `Timeout`.
          stored = key ?? STORED_TIMEOUT;
          id = action.Transitions.NextAction;
        } else {
          id = key === null ? errorNext(action, 'InputTimeLimitExceeded') : (matching(action, key) ?? errorNext(action, 'NoMatchingCondition'));
        }
        break;
      }
      case 'UpdateContactTextToSpeechVoice':
        voice = String(p.TextToSpeechVoice);
        id = action.Transitions.NextAction;
        break;
      case 'CheckOutboundCallStatus':
        // A campaign-only action: general traffic has no verdict to check.
        id = party.callStatus ? (matching(action, party.callStatus) ?? action.Transitions.NextAction) : errorNext(action, 'NoMatchingError');
        break;
      case 'MessageParticipant':
        await party.say(resolve(p.Text), voice);
        id = action.Transitions.NextAction;
        break;
      case 'DisconnectParticipant':
        return { steps: steps + 1 };
      default:
        throw new FlowInterpreterError(`the flow uses ${action.Type}, which the stand-in does not interpret`);
    }
  }
  throw new FlowInterpreterError('the flow ended without disconnecting the participant');
}
