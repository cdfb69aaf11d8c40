/**
 * A small interpreter of Amazon Connect's flow language, for exactly the actions the deployed
 * flow uses (shared/calls/connect/contact-flow.ts): InvokeLambdaFunction, Compare,
 * GetParticipantInput, MessageParticipant and DisconnectParticipant. Any other action type, or
 * a transition to an action that does not exist, fails loudly: the interpreter cannot drift
 * from the flow without a test noticing. JSONPath is the little the flow uses: `$.External.x`
 * (the last function's answer) and `$.StoredCustomerInput` (the last key stored).
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

/** What a run of the flow is connected to: the dialog function, the customer, and whether the contact was stopped. */
export interface FlowParty {
  /** Invokes the function Connect would (the ARN is the flow's), with the event Connect sends. */
  invoke(functionArn: string, event: ConnectContactFlowEvent, timeLimitMs: number): Promise<unknown>;
  /** The contact's data as Connect passes it to a function (without Parameters). */
  contactData: ConnectContactFlowEvent['Details']['ContactData'];
  /** Says `text` and waits for one key (null: none within `timeoutSeconds`); `external` is the function's last answer. */
  input(text: string, timeoutSeconds: number, external: Readonly<Record<string, string>>): Promise<string | null>;
  say(text: string): Promise<void>;
  /** True once the contact was stopped (StopContact): the run ends at the next action. */
  stopped(): boolean;
}

/** The most actions one run takes: the flow's loop ends within a handful of turns, so more is a defect. */
const MAX_STEPS = 100;

export class FlowInterpreterError extends Error {
  override readonly name = 'FlowInterpreterError';
}

const isStringMap = (value: unknown): value is Record<string, string> =>
  !!value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');

export async function runFlow(flow: FlowDocument, party: FlowParty): Promise<{ steps: number }> {
  const byId = new Map(flow.Actions.map((a) => [a.Identifier, a]));
  let external: Record<string, string> = {};
  let stored = '';
  const resolve = (value: unknown): string => {
    const text = String(value ?? '');
    if (text === '$.StoredCustomerInput') return stored;
    const path = /^\$\.External\.(\w+)$/.exec(text);
    if (path) return external[path[1]!] ?? '';
    if (text.startsWith('$.')) throw new FlowInterpreterError(`the flow reads ${text}, which the interpreter does not know`);
    return text;
  };
  const errorNext = (action: FlowAction, type: string) => {
    const next = action.Transitions.Errors?.find((e) => e.ErrorType === type)?.NextAction;
    if (!next) throw new FlowInterpreterError(`${action.Identifier} has no ${type} branch`);
    return next;
  };
  let id: string | undefined = flow.StartAction;
  for (let steps = 0; id; steps++) {
    if (steps >= MAX_STEPS) throw new FlowInterpreterError(`the flow ran ${MAX_STEPS} actions without ending`);
    if (party.stopped()) return { steps };
    const action = byId.get(id);
    if (!action) throw new FlowInterpreterError(`the flow goes to ${id}, which it does not have`);
    const p = action.Parameters;
    switch (action.Type) {
      case 'InvokeLambdaFunction': {
        const attributes = Object.fromEntries(Object.entries((p.LambdaInvocationAttributes ?? {}) as Record<string, string>).map(([k, v]) => [k, resolve(v)]));
        const limitMs = Number(p.InvocationTimeLimitSeconds) * 1000;
        if (!(limitMs > 0 && limitMs <= 8000)) throw new FlowInterpreterError(`${id}: InvocationTimeLimitSeconds must be 1 to 8`);
        const event: ConnectContactFlowEvent = { Name: 'ContactFlowEvent', Details: { ContactData: party.contactData, Parameters: attributes } };
        const answer = await party.invoke(String(p.LambdaFunctionARN), event, limitMs).catch(() => undefined);
        if (!isStringMap(answer)) {
          id = errorNext(action, 'NoMatchingError');
          break;
        }
        external = answer;
        id = action.Transitions.NextAction;
        break;
      }
      case 'Compare': {
        const value = resolve(p.ComparisonValue);
        const matched = action.Transitions.Conditions?.find((c) => {
          if (c.Condition.Operator !== 'Equals') throw new FlowInterpreterError(`${id}: operator ${c.Condition.Operator} is not interpreted`);
          return c.Condition.Operands.includes(value);
        });
        id = matched ? matched.NextAction : errorNext(action, 'NoMatchingCondition');
        break;
      }
      case 'GetParticipantInput': {
        if (p.StoreInput !== 'True') throw new FlowInterpreterError(`${id}: only stored input is interpreted`);
        const key = await party.input(resolve(p.Text), Number(p.InputTimeLimitSeconds), external);
        if (key === null) {
          id = errorNext(action, 'InputTimeLimitExceeded');
          break;
        }
        stored = key;
        id = action.Transitions.NextAction;
        break;
      }
      case 'MessageParticipant':
        await party.say(resolve(p.Text));
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
