/** The dialog function's turns on in-memory ports: the flow's every invocation, from the first turn to the kept decision. */
import { describe, expect, it } from 'vitest';
import { ATTEMPT_ATTRIBUTE } from '#shared/calls/connect/connect-platform.ts';
import type { AttemptOfReference, ContactMap } from '#shared/calls/connect/contact-store.ts';
import { type FlowTurnPorts, flowTurn } from '#shared/calls/connect/flow-turns.ts';
import type { Decision } from '#shared/calls/dialog.ts';
import { orderProcessing } from '#shared/orders/processing.ts';
import { order, ports } from '../orders/memory-ports.ts';

const REFERENCE = 'ref-1';

/** An order in its first attempt's call, its attempt prepared under REFERENCE, and the flow's ports over both. */
function inCall(state: 'in_call' | 'cancelled' = 'in_call', attempt = 1) {
  const processing = ports('+4915100000000');
  processing.orders.orders.set('acme/o-1', { ...order('o-1'), processing_state: state, call_attempts: attempt });
  const prepared: AttemptOfReference = { reference: REFERENCE, tenant: 'acme', external_order_id: 'o-1', attempt: 1, external_customer_id: 'c1' };
  const decisions: Decision[] = [];
  const contacts: Pick<ContactMap, 'byReference' | 'decide' | 'hear'> = {
    byReference: async (reference) => (reference === REFERENCE ? prepared : undefined),
    decide: async (_reference, decision) => void decisions.push(decision),
    hear: async () => {
      prepared.heard = true;
    },
  };
  const flowPorts: FlowTurnPorts = { contacts, scriptOf: orderProcessing(processing).scriptOf };
  const turn = (parameters: Record<string, string>, reference = REFERENCE) =>
    flowTurn(flowPorts, { contactId: 'contact-1', attributes: { [ATTEMPT_ATTRIBUTE]: reference }, parameters });
  return { turn, decisions, prepared };
}

describe("the contact flow's turns", () => {
  it('greets with nothing of the order, reads it on the key, keeps that the customer heard it, then the decision', async () => {
    const { turn, decisions, prepared } = inCall();
    const first = await turn({ turn: 'first' });
    expect(first).toMatchObject({ action: 'ask', keys: '1', state: '0', language: 'de' });
    expect(first.say).not.toContain('9,99');
    const order = await turn({ turn: 'next', state: first.state, pressed: '1' });
    expect(order).toMatchObject({ action: 'ask', keys: '12', state: '10' });
    expect(order.say).toContain('9,99');
    expect(prepared.heard).toBe(true);
    const last = await turn({ turn: 'next', state: order.state, pressed: '1' });
    expect(last).toMatchObject({ action: 'end', keys: '' });
    expect(decisions).toEqual(['confirmed']);
  });

  it('asks once more after a wrong key or silence (stored input holds `Timeout`), and ends without a decision after the second miss', async () => {
    const { turn, decisions } = inCall();
    const order = await turn({ turn: 'next', state: (await turn({ turn: 'first' })).state, pressed: '1' });
    const again = await turn({ turn: 'next', state: order.state, pressed: '7' });
    expect(again).toMatchObject({ action: 'ask', state: '11' });
    const last = await turn({ turn: 'next', state: again.state, pressed: 'Timeout' });
    expect(last.action).toBe('end');
    expect(last.say).toMatch(/Wahl nicht gehört/);
    expect(decisions).toEqual([]);
  });

  it('says goodbye without a word about the order to a silence at the greeting (a mailbox), and keeps nothing', async () => {
    const { turn, decisions, prepared } = inCall();
    const first = await turn({ turn: 'first' });
    const again = await turn({ turn: 'next', state: first.state, pressed: 'Timeout' });
    const last = await turn({ turn: 'next', state: again.state, pressed: 'Timeout' });
    expect(last.action).toBe('end');
    for (const said of [first.say, again.say, last.say]) expect(said).not.toMatch(/9,99|Beans|beans/);
    expect({ decisions, heard: prepared.heard }).toEqual({ decisions: [], heard: undefined });
  });

  it('hangs up without a word on an order cancelled since the dial, or in a later attempt', async () => {
    for (const { state, attempt } of [
      { state: 'cancelled' as const, attempt: 1 },
      { state: 'in_call' as const, attempt: 2 },
    ]) {
      const { turn, decisions } = inCall(state, attempt);
      expect(await turn({ turn: 'first' })).toEqual({ action: 'hang-up', say: '', state: '', keys: '', language: 'en' });
      expect(decisions).toEqual([]);
    }
  });

  it('hangs up without a word on a contact it does not know or a turn state it did not give', async () => {
    const { turn, decisions } = inCall();
    expect(await turn({ turn: 'first' }, 'someone-else')).toMatchObject({ action: 'hang-up', say: '' });
    for (const state of ['', 'not a number', '{"misses":0}', '-1', '1.5']) {
      expect(await turn({ turn: 'next', state, pressed: '1' })).toMatchObject({ action: 'hang-up', say: '' });
    }
    expect(decisions).toEqual([]);
  });
});
