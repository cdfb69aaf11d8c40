/**
 * The one contact flow every live call runs, in Amazon Connect's flow language. It loops and
 * decides nothing: invoke the dialog function, then either say its text and read one key
 * (`ask`) and invoke it again with that key, or say its text and hang up (`end`). A failed
 * invocation, or anything the flow does not expect, hangs up: the attempt is then recorded as
 * answered without a decision, and retried under the attempt limit.
 *
 * The stack deploys it as `AWS::Connect::ContactFlow`; the local stand-in runs this very JSON
 * with an interpreter of exactly these action types.
 */
import { INPUT_TIMEOUT_SECONDS } from '../dialog.ts';

/** Connect waits at most 8 s for a function; the dialog function answers well within it. */
export const FLOW_INVOCATION_LIMIT_SECONDS = 8;

export const FLOW_ACTIONS = {
  firstTurn: 'first-turn',
  route: 'route',
  ask: 'ask',
  pressed: 'turn-after-key',
  silent: 'turn-after-silence',
  goodbye: 'say-goodbye',
  hangUp: 'hang-up',
} as const;

const invoke = (id: string, functionArn: string, attributes: Record<string, string>) => ({
  Identifier: id,
  Type: 'InvokeLambdaFunction',
  Parameters: {
    LambdaFunctionARN: functionArn,
    InvocationTimeLimitSeconds: String(FLOW_INVOCATION_LIMIT_SECONDS),
    InvocationType: 'SYNCHRONOUS',
    LambdaInvocationAttributes: attributes,
    ResponseValidation: { ResponseType: 'STRING_MAP' },
  },
  Transitions: { NextAction: FLOW_ACTIONS.route, Errors: [{ NextAction: FLOW_ACTIONS.hangUp, ErrorType: 'NoMatchingError' }] },
});

/** The flow's JSON (its `Content`), invoking the dialog function at `functionArn`. */
export function contactFlow(functionArn: string) {
  return {
    Version: '2019-10-30',
    StartAction: FLOW_ACTIONS.firstTurn,
    Actions: [
      invoke(FLOW_ACTIONS.firstTurn, functionArn, { turn: 'first' }),
      {
        Identifier: FLOW_ACTIONS.route,
        Type: 'Compare',
        Parameters: { ComparisonValue: '$.External.action' },
        Transitions: {
          NextAction: FLOW_ACTIONS.hangUp,
          Conditions: [
            { NextAction: FLOW_ACTIONS.ask, Condition: { Operator: 'Equals', Operands: ['ask'] } },
            { NextAction: FLOW_ACTIONS.goodbye, Condition: { Operator: 'Equals', Operands: ['end'] } },
          ],
          Errors: [{ NextAction: FLOW_ACTIONS.hangUp, ErrorType: 'NoMatchingCondition' }],
        },
      },
      {
        Identifier: FLOW_ACTIONS.ask,
        Type: 'GetParticipantInput',
        Parameters: {
          Text: '$.External.say',
          InputTimeLimitSeconds: String(INPUT_TIMEOUT_SECONDS),
          StoreInput: 'True',
          InputValidation: { CustomValidation: { MaximumLength: '1' } },
        },
        Transitions: {
          NextAction: FLOW_ACTIONS.pressed,
          Errors: [
            { NextAction: FLOW_ACTIONS.silent, ErrorType: 'InputTimeLimitExceeded' },
            { NextAction: FLOW_ACTIONS.silent, ErrorType: 'NoMatchingError' },
          ],
        },
      },
      invoke(FLOW_ACTIONS.pressed, functionArn, { turn: 'next', state: '$.External.state', pressed: '$.StoredCustomerInput' }),
      invoke(FLOW_ACTIONS.silent, functionArn, { turn: 'next', state: '$.External.state', pressed: '' }),
      {
        Identifier: FLOW_ACTIONS.goodbye,
        Type: 'MessageParticipant',
        Parameters: { Text: '$.External.say' },
        Transitions: { NextAction: FLOW_ACTIONS.hangUp, Errors: [{ NextAction: FLOW_ACTIONS.hangUp, ErrorType: 'NoMatchingError' }] },
      },
      { Identifier: FLOW_ACTIONS.hangUp, Type: 'DisconnectParticipant', Parameters: {}, Transitions: {} },
    ],
  };
}

export type ContactFlow = ReturnType<typeof contactFlow>;
