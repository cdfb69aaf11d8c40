/**
 * The one contact flow, as deployed: a structural check (every transition leads to an action
 * it has, every action type is one the stand-in's interpreter runs, the function within
 * Connect's 8 s), and the interpreter's own refusals, so it cannot drift from the flow.
 */
import { describe, expect, it } from 'vitest';
import { type FlowDocument, FlowInterpreterError, runFlow } from '#local/connect-flow.ts';
import { contactFlow, FLOW_ACTIONS } from '#shared/calls/connect/contact-flow.ts';

const ARN = 'arn:aws:lambda:eu-central-1:123456789012:function:call-dialog';
const flow = contactFlow(ARN) as unknown as FlowDocument;
const INTERPRETED = ['InvokeLambdaFunction', 'Compare', 'GetParticipantInput', 'MessageParticipant', 'DisconnectParticipant'];

/** A party whose dialog answers from a script of turns, and whose customer presses the given keys. */
function party(turns: Record<string, string>[], keys: (string | null)[]) {
  const said: string[] = [];
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
      input: async (text: string) => {
        said.push(text);
        return keys.shift() ?? null;
      },
      say: async (text: string) => void said.push(text),
      stopped: () => false,
    },
  };
}

describe('the contact flow', () => {
  it('has only actions the interpreter runs, every transition to an action it has, and a turn limit within 8 s', () => {
    const ids = new Set(flow.Actions.map((a) => a.Identifier));
    expect(ids.has(flow.StartAction)).toBe(true);
    for (const action of flow.Actions) {
      expect(INTERPRETED).toContain(action.Type);
      const t = action.Transitions as { NextAction?: string; Conditions?: { NextAction: string }[]; Errors?: { NextAction: string }[] };
      for (const next of [t.NextAction, ...(t.Conditions ?? []).map((c) => c.NextAction), ...(t.Errors ?? []).map((e) => e.NextAction)].filter(Boolean))
        expect(ids, `${action.Identifier} → ${next}`).toContain(next);
      if (action.Type === 'InvokeLambdaFunction') {
        expect(action.Parameters.LambdaFunctionARN).toBe(ARN);
        expect(Number(action.Parameters.InvocationTimeLimitSeconds)).toBeLessThanOrEqual(8);
      }
    }
    // The flow decides nothing: the only values it compares are the dialog's own `action`.
    expect(JSON.stringify(flow)).not.toMatch(/confirm|declin|modif/);
  });

  it('loops: say and read a key, pass it back with the state, until the dialog ends the call', async () => {
    const {
      said,
      invocations,
      party: p,
    } = party(
      [
        { action: 'ask', say: 'Order read back. Press 1 or 2.', state: '{"misses":0}' },
        { action: 'ask', say: 'Sorry. Press 1 or 2.', state: '{"misses":1}' },
        { action: 'end', say: 'Thank you.', state: '{"misses":1}' },
      ],
      [null, '1'],
    );
    await runFlow(flow, p);
    expect(said).toEqual(['Order read back. Press 1 or 2.', 'Sorry. Press 1 or 2.', 'Thank you.']);
    expect(invocations).toEqual([
      { turn: 'first' },
      { turn: 'next', state: '{"misses":0}', pressed: '' },
      { turn: 'next', state: '{"misses":1}', pressed: '1' },
    ]);
  });

  it('hangs up without a word when the dialog function fails', async () => {
    const { said, party: p } = party([], []);
    await runFlow(flow, { ...p, invoke: async () => Promise.reject(new Error('timeout')) });
    expect(said).toEqual([]);
  });

  it('refuses an action type it does not interpret, and a transition to nowhere', async () => {
    const { party: p } = party([], []);
    const withLex = { ...flow, Actions: [{ Identifier: FLOW_ACTIONS.firstTurn, Type: 'ConnectParticipantWithLexBot', Parameters: {}, Transitions: {} }] };
    await expect(runFlow(withLex, p)).rejects.toBeInstanceOf(FlowInterpreterError);
    await expect(runFlow({ ...flow, StartAction: 'nowhere' }, p)).rejects.toThrow('does not have');
  });
});
