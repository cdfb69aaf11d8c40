/**
 * The sandbox's simulated network: a simulated customer, chosen by the last digit of the phone
 * number and the attempt (the sandbox scenarios), answers or not and plays the very
 * conversation a live customer hears. The digit decides only how the customer behaves; what
 * they are told and what their keys mean is the dialog's.
 */
import type { CallDisposition } from './call-schemas.ts';
import { type Decision, type DialogScript, HEAR_ORDER_KEY, nextTurn, openingTurn } from './dialog.ts';

/** What the customer does when called. */
export type CustomerBehaviour =
  | { kind: 'no_answer' | 'busy' | 'invalid_number' | 'voicemail' }
  /** Answers and wants: to confirm, to cancel, the suggestion (confirming when none is offered), or says nothing at all. */
  | { kind: 'answers'; wants: 'confirm' | 'cancel' | 'suggestion' | 'nothing' };

/** One line of what was said: the service's words, or the key the customer pressed (null: nothing within the time limit). */
export type TranscriptEntry = { speaker: 'service'; text: string } | { speaker: 'customer'; key: string | null };

export interface Conversation {
  call_disposition: CallDisposition;
  decision?: Decision;
  transcript: TranscriptEntry[];
}

/**
 * The sandbox scenarios' customers (the README's table): every digit keeps its documented
 * result. Voicemail and silence have no digit of their own, as every digit already has a
 * documented result; the dialog's tests cover them.
 */
export function sandboxCustomer(phone: string, attempt: number): CustomerBehaviour {
  switch (phone.at(-1)) {
    case '1':
      return { kind: 'no_answer' };
    case '2':
      return attempt === 1 ? { kind: 'no_answer' } : { kind: 'answers', wants: 'confirm' };
    case '3':
      return { kind: 'answers', wants: 'cancel' };
    case '4':
      return { kind: 'answers', wants: 'suggestion' };
    case '5':
      return attempt === 1 ? { kind: 'busy' } : { kind: 'answers', wants: 'confirm' };
    case '9':
      return { kind: 'invalid_number' };
    default: // 0, 6, 7 and 8
      return { kind: 'answers', wants: 'confirm' };
  }
}

/**
 * The key a simulated customer who wants `wants` presses when told it may press `offered` (null:
 * none). At the greeting (only the key that reads the order is offered) every customer who
 * means to decide presses it; a silent one presses nothing anywhere.
 */
export function keyFor(wants: Extract<CustomerBehaviour, { kind: 'answers' }>['wants'], offered: readonly string[]): string | null {
  if (wants !== 'nothing' && offered.length === 1 && offered[0] === HEAR_ORDER_KEY) return HEAR_ORDER_KEY;
  switch (wants) {
    case 'confirm':
      return '1';
    case 'cancel':
      return '2';
    case 'suggestion':
      return offered.includes('3') ? '3' : '1';
    case 'nothing':
      return null;
  }
}

/**
 * Plays the conversation with the simulated customer, turn by turn, as a call platform drives
 * it. A mailbox takes the call as a person does and hears the greeting, which says nothing of
 * the order; pressing nothing, it is hung up on (the simulated network tells it apart, as
 * answering-machine detection does). A person who never presses the key that reads the order
 * heard nothing of it either: no answer from a person.
 */
export function converse(script: DialogScript, behaviour: CustomerBehaviour): Conversation {
  if (behaviour.kind !== 'answers' && behaviour.kind !== 'voicemail') return { call_disposition: behaviour.kind, transcript: [] };
  const wants = behaviour.kind === 'answers' ? behaviour.wants : 'nothing';
  const transcript: TranscriptEntry[] = [];
  let { state, turn } = openingTurn(script);
  for (;;) {
    transcript.push({ speaker: 'service', text: turn.say });
    if (turn.end) {
      if (behaviour.kind === 'voicemail') return { call_disposition: 'voicemail', transcript };
      if (!turn.end.heard) return { call_disposition: 'no_answer', transcript };
      return { call_disposition: 'answered', ...(turn.end.decision ? { decision: turn.end.decision } : {}), transcript };
    }
    const key = keyFor(wants, turn.input?.digits ?? []);
    transcript.push({ speaker: 'customer', key });
    ({ state, turn } = nextTurn(script, state, key));
  }
}
