/**
 * The one contact flow every live call runs, in Amazon Connect's flow language. It loops and
 * decides nothing: invoke the dialog function, then either say its text and read one key
 * (`ask`) and invoke it again with that key, or say its text and hang up (`end`). A failed
 * invocation, or anything the flow does not expect, hangs up: the attempt is then recorded as
 * answered without a decision, and retried under the attempt limit.
 *
 * As Connect runs it (the flow language reference and the admin guide):
 * - a key is read with stored input (GetParticipantInput, StoreInput "True"): the prompt is
 *   interruptible, and silence takes the Success branch with the stored value `Timeout`
 *   ("Store customer input"), which the dialog reads as no key. Its only error is NoMatchingError;
 * - the voice is Joanna (en-US) until UpdateContactTextToSpeechVoice runs, and its voice must be
 *   static: after the first turn the flow picks the voice of the language the dialog answered;
 * - with campaign traffic (answering-machine detection), CheckOutboundCallStatus comes before
 *   anything is said, and a machine is hung up on without a word (a campaign-only action).
 *
 * The stack deploys it as `AWS::Connect::ContactFlow`; the local stand-in runs this very JSON
 * with an interpreter of exactly these action types.
 */
import { INPUT_TIMEOUT_SECONDS } from '../dialog.ts';
import type { Language } from '../dialog-messages.ts';

/** Connect waits at most 8 s for a function; the dialog function answers well within it. */
export const FLOW_INVOCATION_LIMIT_SECONDS = 8;

/** The value stored input holds when the customer pressed nothing in time. */
export const STORED_INPUT_TIMEOUT = 'Timeout';

/** The Amazon Polly neural voice each language is spoken in (Joanna is Connect's default). */
export const VOICES: Readonly<Record<Language, { voice: string; engine: 'neural' }>> = {
  en: { voice: 'Joanna', engine: 'neural' },
  de: { voice: 'Vicki', engine: 'neural' },
};

export const FLOW_ACTIONS = {
  callStatus: 'check-call-status',
  firstTurn: 'first-turn',
  chooseVoice: 'choose-voice',
  route: 'route',
  ask: 'ask',
  pressed: 'turn-after-key',
  silent: 'turn-after-silence',
  goodbye: 'say-goodbye',
  hangUp: 'hang-up',
} as const;

const voiceAction = (language: Language) => `voice-${language}`;

const invoke = (id: string, functionArn: string, attributes: Record<string, string>, next: string = FLOW_ACTIONS.route) => ({
  Identifier: id,
  Type: 'InvokeLambdaFunction',
  Parameters: {
    LambdaFunctionARN: functionArn,
    InvocationTimeLimitSeconds: String(FLOW_INVOCATION_LIMIT_SECONDS),
    InvocationType: 'SYNCHRONOUS',
    LambdaInvocationAttributes: attributes,
    ResponseValidation: { ResponseType: 'STRING_MAP' },
  },
  Transitions: { NextAction: next, Errors: [{ NextAction: FLOW_ACTIONS.hangUp, ErrorType: 'NoMatchingError' }] },
});

/** Campaign traffic: a person (or no verdict) hears the call; a machine is hung up on before a word. */
const callStatusCheck = () => ({
  Identifier: FLOW_ACTIONS.callStatus,
  Type: 'CheckOutboundCallStatus',
  Parameters: {},
  Transitions: {
    NextAction: FLOW_ACTIONS.firstTurn,
    Conditions: [
      { NextAction: FLOW_ACTIONS.firstTurn, Condition: { Operator: 'Equals', Operands: ['CallAnswered'] } },
      { NextAction: FLOW_ACTIONS.hangUp, Condition: { Operator: 'Equals', Operands: ['VoicemailBeep'] } },
      { NextAction: FLOW_ACTIONS.hangUp, Condition: { Operator: 'Equals', Operands: ['VoicemailNoBeep'] } },
      { NextAction: FLOW_ACTIONS.firstTurn, Condition: { Operator: 'Equals', Operands: ['NotDetected'] } },
    ],
    Errors: [{ NextAction: FLOW_ACTIONS.firstTurn, ErrorType: 'NoMatchingError' }],
  },
});

/** After the first turn: the voice of the language the dialog speaks, set once. */
function voiceChoice() {
  const languages = Object.keys(VOICES) as Language[];
  return [
    {
      Identifier: FLOW_ACTIONS.chooseVoice,
      Type: 'Compare',
      Parameters: { ComparisonValue: '$.External.language' },
      Transitions: {
        NextAction: voiceAction('en'),
        Conditions: languages.map((language) => ({ NextAction: voiceAction(language), Condition: { Operator: 'Equals', Operands: [language] } })),
        Errors: [{ NextAction: voiceAction('en'), ErrorType: 'NoMatchingCondition' }],
      },
    },
    ...languages.map((language) => ({
      Identifier: voiceAction(language),
      Type: 'UpdateContactTextToSpeechVoice',
      Parameters: { TextToSpeechVoice: VOICES[language].voice, TextToSpeechEngine: VOICES[language].engine },
      Transitions: { NextAction: FLOW_ACTIONS.route },
    })),
  ];
}

/** The flow's JSON (its `Content`), invoking the dialog function at `functionArn`; with campaign traffic, the call status comes first. */
export function contactFlow(functionArn: string, options: { campaignTraffic?: boolean } = {}) {
  return {
    Version: '2019-10-30',
    StartAction: options.campaignTraffic ? FLOW_ACTIONS.callStatus : FLOW_ACTIONS.firstTurn,
    Actions: [
      ...(options.campaignTraffic ? [callStatusCheck()] : []),
      invoke(FLOW_ACTIONS.firstTurn, functionArn, { turn: 'first' }, FLOW_ACTIONS.chooseVoice),
      ...voiceChoice(),
      {
        Identifier: FLOW_ACTIONS.route,
        Type: 'Compare',
        Parameters: { ComparisonValue: '$.External.action' },
        Transitions: {
          NextAction: FLOW_ACTIONS.hangUp,
          Conditions: [
            { NextAction: FLOW_ACTIONS.ask, Condition: { Operator: 'Equals', Operands: ['ask'] } },
            { NextAction: FLOW_ACTIONS.goodbye, Condition: { Operator: 'Equals', Operands: ['end'] } },
            { NextAction: FLOW_ACTIONS.hangUp, Condition: { Operator: 'Equals', Operands: ['hang-up'] } },
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
        // Silence is the Success branch too (the stored value `Timeout`): the dialog tells it from a key.
        Transitions: { NextAction: FLOW_ACTIONS.pressed, Errors: [{ NextAction: FLOW_ACTIONS.silent, ErrorType: 'NoMatchingError' }] },
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
