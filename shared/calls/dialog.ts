/**
 * The conversation every call is: a small state machine a call platform drives turn by turn.
 * Each turn is what to say (plain text, safe inside SSML) and the keypad input it waits for;
 * the last turn carries the decision. Pure: the sandbox's simulated customer and a real
 * telephone network drive the very same functions.
 *
 * Nothing about the order is said before a person is there (contract-decisions section 11):
 * whoever answers (a mailbox too) hears only the store's name, that the call is about an order,
 * and "press 1 to hear it". A key brings the order read back (its date, at most MAX_LINES_READ
 * lines, the rest summarised, its total), then "1 to confirm, 2 to cancel" and, where a
 * suggestion applies, "3" for it. Keys are read while a turn is being spoken (barge-in): 1 at
 * the greeting reads the order, and 1, 2 or 3 during the read-back decide at once. At the
 * greeting, silence or another key asks once more, then the call ends without a word about the
 * order (`heard: false`); in the read-back, a miss repeats the question once, and a second ends
 * the call without a decision.
 */
import { LANGUAGES, type Language, message } from './dialog-messages.ts';

/** Lines read out one by one; the rest of a long order is summarised in one sentence. */
export const MAX_LINES_READ = 5;
/** Longest text a partner supplies that is read out (a product title, the store's name). */
export const MAX_SPOKEN_NAME = 80;
/** No turn is longer than this, whatever the order: a bound the property test holds. */
export const MAX_TURN_CHARS = 1_600;
/** How long a turn waits for a key. */
export const INPUT_TIMEOUT_SECONDS = 8;

export type Decision = 'confirmed' | 'declined' | 'modified';

export interface DialogInput {
  /** The store's name as the customer knows it (the tenant's display name for the market). */
  storeName: string;
  /** When the order was placed (RFC 3339), said as a date in `timeZone`. */
  orderedAt: string;
  timeZone: string;
  /** The customer's locale, then the market's default: the first whose language has a message table wins, else English. */
  locales: readonly (string | undefined)[];
  currency: string;
  lines: readonly { title: string; quantity: number; price: string }[];
  total: string;
  /** The suggestion the customer may take with 3: it replaces the matching lines (upsell) or is added (cross-sell). */
  offer?: { title: string; price: string; kind: 'adds' | 'replaces' } | undefined;
}

export interface DialogScript {
  language: Language;
  /** The greeting: the store's name, that the call is about an order, and the key that reads it. Nothing of the order itself. */
  greeting: string;
  /** The order read back: its date, its lines and its total, said once a key was pressed at the greeting. */
  opening: string;
  /** The question, with the offer when there is one: asked at the start and once more after a miss. */
  question: string;
  keys: readonly string[];
  offerTitle?: string | undefined;
}

export type Turn =
  | { say: string; input: { digits: readonly string[]; timeoutSeconds: number }; end?: undefined }
  /** `heard`: whether the customer pressed the key that reads the order (a person was there). */
  | { say: string; input: null; end: { decision: Decision | null; heard: boolean } };

/** How far the conversation is: at the greeting or in the order, and the misses there (serialisable, so a platform can carry it between turns). */
export interface DialogState {
  stage: 'greeting' | 'order';
  misses: number;
}

/** The key that reads the order at the greeting. */
export const HEAR_ORDER_KEY = '1';

/** Text a partner supplied, made safe to speak: no markup characters, no control characters, bounded. */
export function speakable(text: string, max = MAX_SPOKEN_NAME): string {
  const plain = text
    .normalize('NFC')
    .replace(/[\p{Cc}<>&"'\\{}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = Array.from(plain);
  return chars.length <= max
    ? plain
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

function canonical(locale: string | undefined): string | undefined {
  if (!locale) return undefined;
  try {
    return Intl.getCanonicalLocales(locale)[0];
  } catch {
    return undefined;
  }
}

/** The language to speak and the locale to format amounts and dates in. */
export function chooseLanguage(locales: readonly (string | undefined)[]): { language: Language; locale: string } {
  for (const candidate of locales.map(canonical)) {
    const language = candidate?.split('-')[0] as Language | undefined;
    if (candidate && language && LANGUAGES.includes(language)) return { language, locale: candidate };
  }
  return { language: 'en', locale: 'en' };
}

/** Everything the conversation says, formatted for the customer's language. */
export function dialogScript(input: DialogInput): DialogScript {
  const { language, locale } = chooseLanguage(input.locales);
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency: input.currency });
  const amount = (price: string) => money.format(price as `${number}`);
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: input.timeZone }).format(new Date(input.orderedAt));
  const read = input.lines
    .slice(0, MAX_LINES_READ)
    .map((l) => message(language, 'line', { quantity: l.quantity, title: speakable(l.title), price: amount(l.price) }));
  const rest = input.lines.length - read.length;
  const greeting = message(language, 'greeting', { store: speakable(input.storeName) });
  const opening = [
    message(language, 'order_of', { date }),
    ...read,
    ...(rest > 0 ? [message(language, 'more_lines', { count: rest })] : []),
    message(language, 'total', { total: amount(input.total) }),
  ].join(' ');
  const offer = input.offer;
  const offerTitle = offer ? speakable(offer.title) : undefined;
  const question = [
    message(language, 'ask'),
    ...(offer ? [message(language, offer.kind === 'adds' ? 'offer_adds' : 'offer_replaces', { title: offerTitle!, price: amount(offer.price) })] : []),
  ].join(' ');
  return { language, greeting, opening, question, keys: offer ? ['1', '2', '3'] : ['1', '2'], offerTitle };
}

const ask = (say: string, digits: readonly string[]): Turn => ({ say, input: { digits, timeoutSeconds: INPUT_TIMEOUT_SECONDS } });

const DECISIONS: Record<string, Decision> = { '1': 'confirmed', '2': 'declined', '3': 'modified' };

function goodbye(script: DialogScript, decision: Decision | null): Turn {
  const key = decision ? (`goodbye_${decision}` as const) : 'goodbye_no_decision';
  return { say: message(script.language, key, { title: script.offerTitle ?? '' }), input: null, end: { decision, heard: true } };
}

/** The first turn: the greeting, waiting for the key that reads the order. */
export function openingTurn(script: DialogScript): { state: DialogState; turn: Turn } {
  return { state: { stage: 'greeting', misses: 0 }, turn: ask(script.greeting, [HEAR_ORDER_KEY]) };
}

/** The turn after the customer pressed `pressed` (null: nothing within the time limit). */
export function nextTurn(script: DialogScript, state: DialogState, pressed: string | null): { state: DialogState; turn: Turn } {
  if (state.stage === 'greeting') {
    if (pressed === HEAR_ORDER_KEY) return { state: { stage: 'order', misses: 0 }, turn: ask(`${script.opening} ${script.question}`, script.keys) };
    if (state.misses === 0) return { state: { stage: 'greeting', misses: 1 }, turn: ask(message(script.language, 'greeting_again'), [HEAR_ORDER_KEY]) };
    // Nobody pressed the key: nothing of the order was said, and nothing is.
    return {
      state: { stage: 'greeting', misses: 2 },
      turn: { say: message(script.language, 'goodbye_unheard'), input: null, end: { decision: null, heard: false } },
    };
  }
  if (pressed !== null && script.keys.includes(pressed)) return { state, turn: goodbye(script, DECISIONS[pressed]!) };
  if (state.misses === 0)
    return { state: { stage: 'order', misses: 1 }, turn: ask(`${message(script.language, 'not_understood')} ${script.question}`, script.keys) };
  return { state: { stage: 'order', misses: state.misses + 1 }, turn: goodbye(script, null) };
}
