/**
 * The conversation every call is: each branch in each language, the tables held to the same
 * keys and placeholders, and turns that stay bounded and say the total whatever the order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DialogInput, dialogScript, MAX_TURN_CHARS, nextTurn, openingTurn, speakable, type Turn } from '#shared/calls/dialog.ts';
import { LANGUAGES, MESSAGES, placeholdersOf } from '#shared/calls/dialog-messages.ts';
import { converse } from '#shared/calls/simulated-customer.ts';

const order = (overrides: Partial<DialogInput> = {}): DialogInput => ({
  storeName: 'Kaffee & Co <Berlin>',
  orderedAt: '2026-11-24T23:30:00Z',
  timeZone: 'Europe/Berlin',
  locales: ['de-DE'],
  currency: 'EUR',
  lines: [
    { title: 'Espresso beans', quantity: 2, price: '9.99' },
    { title: 'Filter', quantity: 1, price: '3.50' },
  ],
  total: '23.48',
  ...overrides,
});
const withOffer = (overrides: Partial<DialogInput> = {}) => order({ offer: { title: 'Espresso beans 1 kg', price: '24.90', kind: 'replaces' }, ...overrides });

/** Drives the dialog with the given keys (null: silence) and returns every turn. */
function play(input: DialogInput, keys: (string | null)[]): Turn[] {
  const script = dialogScript(input);
  let { state, turn } = openingTurn(script);
  const turns = [turn];
  for (const key of keys) {
    if (turn.end) break;
    ({ state, turn } = nextTurn(script, state, key));
    turns.push(turn);
  }
  return turns;
}
const decisionOf = (turns: Turn[]) => turns.at(-1)!.end?.decision;

describe('the dialog', () => {
  it.each([
    [
      'de-DE',
      'Guten Tag, hier ist Kaffee Co Berlin. Wir rufen wegen Ihrer Bestellung vom 25. November 2026 an.',
      '2 mal Espresso beans, zu je 9,99 €.',
      'Der Gesamtbetrag ist 23,48 €.',
    ],
    [
      'en-GB',
      'Hello, this is Kaffee Co Berlin, calling about your order of 25 November 2026.',
      '2 times Espresso beans, at €9.99 each.',
      'The total is €23.48.',
    ],
  ])('greets, names the store and the order date in the market time zone, reads back lines and total (%s)', (locale, greeting, line, total) => {
    const [opening] = play(order({ locales: [locale] }), []);
    // Intl puts a no-break space between amount and currency sign.
    const said = opening!.say.replace(/[\u00a0\u202f]/g, ' ');
    expect(said).toContain(greeting);
    expect(said).toContain(line);
    expect(said).toContain(total);
    expect(opening!.input).toEqual({ digits: ['1', '2'], timeoutSeconds: 8 });
  });

  it.each(LANGUAGES)('confirms with 1 and cancels with 2, saying goodbye with what was decided (%s)', (language) => {
    const input = order({ locales: [language] });
    const confirmed = play(input, ['1']);
    expect(decisionOf(confirmed)).toBe('confirmed');
    expect(confirmed.at(-1)).toMatchObject({ input: null, say: MESSAGES[language].goodbye_confirmed });
    const declined = play(input, ['2']);
    expect(decisionOf(declined)).toBe('declined');
    expect(declined.at(-1)!.say).toBe(MESSAGES[language].goodbye_declined);
  });

  it.each(LANGUAGES)('offers the suggestion as 3 with its price; 3 takes it, 1 ignores it (%s)', (language) => {
    const input = withOffer({ locales: [language] });
    const [opening] = play(input, []);
    expect(opening!.input!.digits).toEqual(['1', '2', '3']);
    expect(opening!.say).toContain('Espresso beans 1 kg');
    expect(opening!.say).toMatch(language === 'de' ? /24,90\s€/ : /€24\.90/);
    const accepted = play(input, ['3']);
    expect(decisionOf(accepted)).toBe('modified');
    expect(accepted.at(-1)!.say).toContain('Espresso beans 1 kg');
    expect(decisionOf(play(input, ['1']))).toBe('confirmed');
    // Without an offer, 3 means nothing.
    expect(play(order({ locales: [language] }), ['3']).map((t) => t.end?.decision ?? null)).toEqual([null, null]);
  });

  it.each(LANGUAGES)('repeats the question once after a wrong key or silence, then decides or ends without a decision (%s)', (language) => {
    const input = order({ locales: [language] });
    const wrongThenConfirm = play(input, ['7', '1']);
    expect(wrongThenConfirm[1]!.say.startsWith(MESSAGES[language].not_understood)).toBe(true);
    expect(wrongThenConfirm[1]!.say).toContain(MESSAGES[language].ask);
    expect(decisionOf(wrongThenConfirm)).toBe('confirmed');
    const silentTwice = play(input, [null, null]);
    expect(silentTwice).toHaveLength(3);
    expect(silentTwice.at(-1)).toMatchObject({ input: null, end: { decision: null }, say: MESSAGES[language].goodbye_no_decision });
    expect(decisionOf(play(input, ['9', null]))).toBeNull();
  });

  it('hangs up on a voicemail without reading the order, and records an answered call without a choice as such', () => {
    expect(converse(dialogScript(order()), { kind: 'voicemail' })).toEqual({ call_disposition: 'voicemail', transcript: [] });
    const silent = converse(dialogScript(order()), { kind: 'answers', wants: 'nothing' });
    expect(silent.call_disposition).toBe('answered');
    expect(silent.decision).toBeUndefined();
    expect(silent.transcript.filter((t) => t.speaker === 'customer')).toEqual([
      { speaker: 'customer', key: null },
      { speaker: 'customer', key: null },
    ]);
  });

  it('speaks in the customer language, then the market default, then English', () => {
    expect(dialogScript(order({ locales: ['de-AT', 'en-GB'] })).language).toBe('de');
    expect(dialogScript(order({ locales: ['fr-FR', 'de-DE'] })).language).toBe('de');
    expect(dialogScript(order({ locales: ['fr-FR', undefined] })).language).toBe('en');
    expect(dialogScript(order({ locales: ['not a locale!', 'xx'] })).language).toBe('en');
  });

  it('keeps every message table to the same keys and placeholders', () => {
    const [reference, ...others] = LANGUAGES.map((language) => MESSAGES[language]);
    for (const table of others) {
      expect(Object.keys(table).sort()).toEqual(Object.keys(reference!).sort());
      for (const [key, text] of Object.entries(reference!)) expect(placeholdersOf(table[key as keyof typeof table]), key).toEqual(placeholdersOf(text));
    }
  });

  it('makes partner text safe inside SSML and bounded', () => {
    expect(speakable('<speak>Beans & "more"</speak>\u0000\n')).toBe('speak Beans more /speak');
    expect(Array.from(speakable('x'.repeat(500))).length).toBe(80);
  });

  it('keeps every turn under a fixed length and says the total, for any order of up to 250 lines', () => {
    const title = fc.string({ minLength: 1, maxLength: 500, unit: 'grapheme' });
    const line = fc.record({
      title,
      quantity: fc.integer({ min: 1, max: 10_000 }),
      price: fc.integer({ min: 0, max: 99_999_999 }).map((c) => (c / 100).toFixed(2)),
    });
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 250 }),
        fc.option(fc.record({ title, price: fc.constant('1.00'), kind: fc.constantFrom('adds' as const, 'replaces' as const) }), { nil: undefined }),
        fc.constantFrom('de-DE', 'en-US', 'fr-FR'),
        fc.array(fc.option(fc.constantFrom('1', '2', '3', '4', '#'), { nil: null }), { maxLength: 3 }),
        (lines, offer, locale, keys) => {
          const total = (lines.reduce((sum, l) => sum + Math.round(Number(l.price) * 100) * l.quantity, 0) / 100).toFixed(2);
          const input = order({ lines, offer, locales: [locale], storeName: 'S'.repeat(300), total });
          const turns = play(input, keys);
          for (const turn of turns) expect(turn.say.length).toBeLessThanOrEqual(MAX_TURN_CHARS);
          const amount = new Intl.NumberFormat(dialogScript(input).language === 'de' ? 'de-DE' : 'en', { style: 'currency', currency: 'EUR' }).format(
            total as `${number}`,
          );
          expect(turns[0]!.say).toContain(amount);
          if (lines.length > 5) expect(turns[0]!.say).toMatch(new RegExp(`${lines.length - 5} (more items|weitere Artikel)`));
        },
      ),
      { numRuns: 200 },
    );
  });
});
