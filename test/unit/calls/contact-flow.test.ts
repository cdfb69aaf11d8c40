/**
 * The one contact flow, as deployed and as Connect runs it: a flow Connect would publish (every
 * transition to an action it has, only the error branches each action may take, the function
 * within Connect's 8 s, a static voice), stored input's silence as `Timeout` on the Success
 * branch, the voice of the dialog's language, and with campaign traffic a machine hung up on
 * before a word; and the interpreter's own refusals, so it cannot drift from Connect.
 */
import { describe, expect, it } from 'vitest';
import { type CallStatus, DEFAULT_VOICE, type FlowDocument, FlowInterpreterError, publishedFlow, runFlow } from '#local/connect-flow.ts';
import { contactFlow, FLOW_ACTIONS, VOICES } from '#shared/calls/connect/contact-flow.ts';

const ARN = 'arn:aws:lambda:eu-central-1:123456789012:function:call-dialog';
const flow = contactFlow(ARN) as unknown as FlowDocument;
const campaignFlow = contactFlow(ARN, { campaignTraffic: true }) as unknown as FlowDocument;

/** A party whose dialog answers from a script of turns, and whose customer presses the given keys. */
function party(turns: Record<string, string>[], keys: (string | null)[], callStatus?: CallStatus) {
  const said: { text: string; voice: string }[] = [];
  const invocations: Record<string, string>[] = [];
  return {
    said,
    invocations,
    party: {
      invoke: async (_arn: string, event: { Details: { Parameters: Record<string, string> } }) => {
        invocations.push(event.Details.Parameters);
        return turns.shift();
      },
      contactData: {} as never,
      input: async (text: string, voice: string) => {
        said.push({ text, voice });
        return keys.shift() ?? null;
      },
      say: async (text: string, voice: string) => void said.push({ text, voice }),
      callStatus,
      stopped: () => false,
    },
  };
}

const turn = (action: string, say: string, state: string, language = 'en') => ({ action, say, state, keys: '12', language });

describe('the contact flow', () => {
  it('is one Connect publishes, in both its forms: its function within 8 s, every branch one its action may take', () => {
    for (const document of [flow, campaignFlow]) expect(publishedFlow(document)).toBe(document);
    for (const action of flow.Actions.filter((a) => a.Type === 'InvokeLambdaFunction')) expect(action.Parameters.LambdaFunctionARN).toBe(ARN);
    // Stored input takes no InputTimeLimitExceeded branch: silence is its Success branch.
    expect(JSON.stringify(flow)).not.toContain('InputTimeLimitExceeded');
    // The flow decides nothing: the only values it compares are the dialog's own `action` and `language`.
    expect(JSON.stringify(flow)).not.toMatch(/confirm|declin|modif/);
  });

  it('loops: say and read a key, pass it back with the state (silence as `Timeout`), until the dialog ends the call', async () => {
    const {
      said,
      invocations,
      party: p,
    } = party([turn('ask', 'Order read back. Press 1 or 2.', '0'), turn('ask', 'Sorry. Press 1 or 2.', '1'), turn('end', 'Thank you.', '1')], [null, '1']);
    await runFlow(flow, p);
    expect(said.map((s) => s.text)).toEqual(['Order read back. Press 1 or 2.', 'Sorry. Press 1 or 2.', 'Thank you.']);
    expect(invocations).toEqual([{ turn: 'first' }, { turn: 'next', state: '0', pressed: 'Timeout' }, { turn: 'next', state: '1', pressed: '1' }]);
  });

  it("speaks in the voice of the dialog's language: German in Vicki's neural voice, English in Joanna's", async () => {
    for (const language of ['de', 'en'] as const) {
      const { said, party: p } = party([turn('ask', 'Hallo.', '0', language), turn('end', 'Tschüss.', '0', language)], ['1']);
      await runFlow(flow, p);
      expect(said.map((s) => s.voice)).toEqual([VOICES[language].voice, VOICES[language].voice]);
    }
    expect(VOICES.de).toEqual({ voice: 'Vicki', engine: 'neural' });
  });

  it('hangs up without a word when the dialog function fails, or answers that the call is not its own', async () => {
    const failed = party([], []);
    await runFlow(flow, { ...failed.party, invoke: async () => Promise.reject(new Error('timeout')) });
    expect(failed.said).toEqual([]);
    const foreign = party([{ action: 'hang-up', say: '', state: '', keys: '', language: 'en' }], []);
    await runFlow(flow, foreign.party);
    expect(foreign.said).toEqual([]);
  });

  it('with campaign traffic, says nothing to a machine and goes on for a person or no verdict', async () => {
    for (const status of ['VoicemailBeep', 'VoicemailNoBeep'] as const) {
      const { said, invocations, party: p } = party([turn('ask', 'Hello.', '0')], ['1'], status);
      await runFlow(campaignFlow, p);
      expect({ said, invocations }).toEqual({ said: [], invocations: [] });
    }
    for (const status of ['CallAnswered', 'NotDetected'] as const) {
      const { said, party: p } = party([turn('end', 'Hello.', '0')], [], status);
      await runFlow(campaignFlow, p);
      expect(said).toHaveLength(1);
    }
  });

  it('refuses what Connect refuses to publish or run: an unknown action, a branch its action cannot take, a transition to nowhere, a dynamic voice', async () => {
    const { party: p } = party([], []);
    const edited = (edit: (actions: FlowDocument['Actions']) => void): FlowDocument => {
      const copy = structuredClone(flow);
      edit(copy.Actions);
      return copy;
    };
    const ask = (actions: FlowDocument['Actions']) => actions.find((a) => a.Identifier === FLOW_ACTIONS.ask)!;
    const refused = [
      { ...flow, Actions: [{ Identifier: FLOW_ACTIONS.firstTurn, Type: 'ConnectParticipantWithLexBot', Parameters: {}, Transitions: {} }] },
      { ...flow, StartAction: 'nowhere' },
      edited((a) => ask(a).Transitions.Errors!.push({ NextAction: FLOW_ACTIONS.silent, ErrorType: 'InputTimeLimitExceeded' })),
      edited((a) => (ask(a).Transitions.Errors = [])),
      edited((a) => delete ask(a).Parameters.InputValidation),
      edited((a) => (a.find((x) => x.Type === 'UpdateContactTextToSpeechVoice')!.Parameters.TextToSpeechVoice = '$.External.voice')),
      edited((a) => (a.find((x) => x.Type === 'UpdateContactTextToSpeechVoice')!.Parameters.TextToSpeechVoice = 'Vickie')),
    ];
    for (const document of refused) await expect(runFlow(document, p)).rejects.toBeInstanceOf(FlowInterpreterError);
    // Without UpdateContactTextToSpeechVoice, Connect speaks in Joanna's voice.
    expect(DEFAULT_VOICE).toBe('Joanna');
    // CheckOutboundCallStatus on general traffic has no verdict: its NoMatchingError branch.
    const general = party([turn('end', 'Hello.', '0')], []);
    await runFlow(campaignFlow, general.party);
    expect(general.said).toHaveLength(1);
  });
});
