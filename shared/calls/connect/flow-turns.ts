/**
 * The dialog function's work: one turn of the conversation for the contact flow. The flow holds
 * no business logic: it invokes this with the key the customer pressed (or nothing), says what
 * it answers, reads one key, and comes back, until the answer is `end`. Every decision is the
 * dialog's (dialog.ts); the script is the same `callScript` the sandbox's simulated customer hears.
 *
 * The flow carries the dialog's state between turns (`state`, the misses so far, a bare number:
 * Connect documents attribute values as alphanumeric) in the function's own answer, so a turn reads the order and its facts and writes nothing until the
 * customer has chosen: then the choice is kept with the attempt's reference (the contact's one
 * attribute, written before the dial), where the event worker finds it.
 */

import type { AttemptKey } from '../call-platform.ts';
import { type DialogScript, type DialogState, nextTurn, openingTurn, type Turn } from '../dialog.ts';
import type { Language } from '../dialog-messages.ts';
import { ATTEMPT_ATTRIBUTE } from './connect-platform.ts';
import { STORED_INPUT_TIMEOUT } from './contact-flow.ts';
import type { ContactMap } from './contact-store.ts';

/** What the flow passes: the turn (`first`, or `next` with the key and the state it was given). */
export interface FlowTurnRequest {
  contactId: string;
  /** The contact's attributes: the attempt's reference, checked against the contact's item. */
  attributes: Readonly<Record<string, string | undefined>>;
  parameters: Readonly<Record<string, string | undefined>>;
}

/**
 * The flow's STRING_MAP: `ask` says `say` and reads a key; `end` says `say` and hangs up;
 * `hang-up` hangs up without a word. `language` picks the voice after the first turn; `keys`
 * are the keys `say` offers (the flow ignores them; they are what the words say).
 */
export interface FlowTurnAnswer {
  [key: string]: string;
  action: 'ask' | 'end' | 'hang-up';
  say: string;
  state: string;
  keys: string;
  language: Language;
}

export interface FlowTurnPorts {
  contacts: Pick<ContactMap, 'byReference' | 'decide' | 'hear'>;
  /**
   * What the attempt's call says; undefined when its order is no longer in this attempt's call
   * (a cancel or an erasure that landed since the dial), and the flow hangs up without a word.
   */
  scriptOf(attempt: AttemptKey): Promise<DialogScript | undefined>;
}

/** Hang up without a word: the contact is not (or no longer) a call this service places. */
const HANG_UP: FlowTurnAnswer = { action: 'hang-up', say: '', state: '', keys: '', language: 'en' };

/** In the order, the state is the misses there plus this; at the greeting, the misses alone. */
const IN_ORDER = 10;
/** The dialog's state as the flow carries it: a bare number this function gave. */
const stateOf = (text: string | undefined): DialogState | undefined => {
  if (!/^\d{1,2}$/.test(text ?? '')) return undefined;
  const n = Number(text);
  return n >= IN_ORDER ? { stage: 'order', misses: n - IN_ORDER } : { stage: 'greeting', misses: n };
};
const stateText = (state: DialogState) => String(state.misses + (state.stage === 'order' ? IN_ORDER : 0));

/** The key the flow stored: nothing when the customer pressed none in time (Connect stores `Timeout`). */
const pressedOf = (stored: string | undefined): string | null => (!stored || stored === STORED_INPUT_TIMEOUT ? null : stored);

const answerOf = (state: DialogState, turn: Turn, language: Language): FlowTurnAnswer => ({
  action: turn.end ? 'end' : 'ask',
  say: turn.say,
  state: stateText(state),
  keys: turn.input?.digits.join('') ?? '',
  language,
});

export async function flowTurn(ports: FlowTurnPorts, request: FlowTurnRequest): Promise<FlowTurnAnswer> {
  const reference = request.attributes[ATTEMPT_ATTRIBUTE];
  const contact = reference ? await ports.contacts.byReference(reference) : undefined;
  if (!contact) return HANG_UP;
  const script = await ports.scriptOf(contact);
  if (!script) return HANG_UP;
  const first = request.parameters.turn !== 'next';
  const state = first ? undefined : stateOf(request.parameters.state);
  if (!first && !state) return HANG_UP;
  const { state: next, turn } = first ? openingTurn(script) : nextTurn(script, state!, pressedOf(request.parameters.pressed));
  // The customer pressed the key that reads the order: a person was there (the attempt's disposition says so).
  if (state?.stage === 'greeting' && next.stage === 'order') await ports.contacts.hear(contact.reference);
  if (turn.end?.decision) await ports.contacts.decide(contact.reference, turn.end.decision);
  return answerOf(next, turn, script.language);
}
