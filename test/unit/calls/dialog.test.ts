/**
 * The conversation every call is: each branch in each language, nothing of the order before the
 * key that reads it, the tables held to the same keys and placeholders, and turns that stay
 * bounded and say the total whatever the order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DialogInput, dialogScript, MAX_TURN_CHARS, nextTurn, openingTurn, speakable, type Turn } from '#shared/calls/dialog.ts';
import { LANGUAGES, MESSAGES, placeholdersOf } from '#shared/calls/dialog-messages.ts';
import { converse } from '#shared/calls/simulated-customer.ts';

const order_ = (overrides: Partial<DialogInput> = {}): DialogInput => ({
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
const withOffer = (overrides: Partial<DialogInput> = {}) => order_({ offer: { title: 'Espresso beans 1 kg', price: '24.90', kind: 'replaces' }, ...overrides });

/** Drives the dialog with the given keys (null: silence) and returns every turn. */
function play(input: DialogInput, keys: (string | null)[]): Turn[] {
  return greetingAndAfter(input, keys);
}

/** The turns after the key that reads the order (1 at the greeting), which the read-back opens. */
function heard(input: DialogInput, keys: (string | null)[]): Turn[] {
  return play(input, ['1', ...keys]).slice(1);
}

function greetingAndAfter(input: DialogInput, keys: (string | null)[]): Turn[] {
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
      'Guten Tag, hier ist Kaffee Co Berlin. Wir rufen wegen Ihrer Bestellung an. Um sie zu hören, drücken Sie die 1.',
      'Ihre Bestellung vom 25. November 2026:',
      '2 mal Espresso beans, zu je 9,99 €.',
      'Der Gesamtbetrag ist 23,48 €.',
    ],
    [
      'en-GB',
      'Hello, this is Kaffee Co Berlin, calling about your order. To hear it, press 1.',
      'Your order of 25 November 2026:',
      '2 times Espresso beans, at €9.99 each.',
      'The total is €23.48.',
    ],
  ])(
    'greets with the store and nothing of the order, then on 1 reads its date in the market time zone, its lines and total (%s)',
    (locale, greeting, date, line, total) => {
      const [opening, order] = play(order_({ locales: [locale] }), ['1']);
      expect(opening).toEqual({ say: greeting, input: { digits: ['1'], timeoutSeconds: 8 } });
      // Intl puts a no-break space between amount and currency sign.
      const said = order!.say.replace(/[\u00a0\u202f]/g, ' ');
      expect(said.startsWith(date)).toBe(true);
      expect(said).toContain(line);
      expect(said).toContain(total);
      expect(order!.input).toEqual({ digits: ['1', '2'], timeoutSeconds: 8 });
    },
  );

  it.each(LANGUAGES)('confirms with 1 and cancels with 2, saying goodbye with what was decided (%s)', (language) => {
    const input = order_({ locales: [language] });
    const confirmed = heard(input, ['1']);
    expect(decisionOf(confirmed)).toBe('confirmed');
    expect(confirmed.at(-1)).toMatchObject({ input: null, say: MESSAGES[language].goodbye_confirmed, end: { heard: true } });
    const declined = heard(input, ['2']);
    expect(decisionOf(declined)).toBe('declined');
    expect(declined.at(-1)!.say).toBe(MESSAGES[language].goodbye_declined);
  });

  it.each(LANGUAGES)('offers the suggestion as 3 with its price; 3 takes it, 1 ignores it (%s)', (language) => {
    const input = withOffer({ locales: [language] });
    const [order] = heard(input, []);
    expect(order!.input!.digits).toEqual(['1', '2', '3']);
    expect(order!.say).toContain('Espresso beans 1 kg');
    expect(order!.say).toMatch(language === 'de' ? /24,90\s€/ : /€24\.90/);
    const accepted = heard(input, ['3']);
    expect(decisionOf(accepted)).toBe('modified');
    expect(accepted.at(-1)!.say).toContain('Espresso beans 1 kg');
    expect(decisionOf(heard(input, ['1']))).toBe('confirmed');
    // Without an offer, 3 means nothing.
    expect(heard(order_({ locales: [language] }), ['3']).map((t) => t.end?.decision ?? null)).toEqual([null, null]);
  });

  it.each(LANGUAGES)('repeats the question once after a wrong key or silence, then decides or ends without a decision (%s)', (language) => {
    const input = order_({ locales: [language] });
    const wrongThenConfirm = heard(input, ['7', '1']);
    expect(wrongThenConfirm[1]!.say.startsWith(MESSAGES[language].not_understood)).toBe(true);
    expect(wrongThenConfirm[1]!.say).toContain(MESSAGES[language].ask);
    expect(decisionOf(wrongThenConfirm)).toBe('confirmed');
    const silentTwice = heard(input, [null, null]);
    expect(silentTwice).toHaveLength(3);
    expect(silentTwice.at(-1)).toMatchObject({ input: null, end: { decision: null, heard: true }, say: MESSAGES[language].goodbye_no_decision });
    expect(decisionOf(heard(input, ['9', null]))).toBeNull();
  });

  it.each(LANGUAGES)('asks for the key once more at the greeting, then ends without a word about the order (%s)', (language) => {
    const silent = play(order_({ locales: [language] }), [null, '2']);
    expect(silent.map((t) => t.say)).toEqual([
      MESSAGES[language].greeting.replace('{store}', 'Kaffee Co Berlin'),
      MESSAGES[language].greeting_again,
      MESSAGES[language].goodbye_unheard,
    ]);
    expect(silent.at(-1)!.end).toEqual({ decision: null, heard: false });
  });

  it('plays a mailbox the greeting only, and records a person who never pressed the key as no answer', () => {
    const mailbox = converse(dialogScript(order_()), { kind: 'voicemail' });
    expect(mailbox.call_disposition).toBe('voicemail');
    expect(
      mailbox.transcript
        .filter((t) => t.speaker === 'service')
        .map((t) => (t as { text: string }).text)
        .join(' '),
    ).not.toMatch(/Espresso|9,99|23,48/);
    const silent = converse(dialogScript(order_()), { kind: 'answers', wants: 'nothing' });
    expect(silent.call_disposition).toBe('no_answer');
    expect(silent.decision).toBeUndefined();
    const decided = converse(dialogScript(order_()), { kind: 'answers', wants: 'cancel' });
    expect(decided).toMatchObject({ call_disposition: 'answered', decision: 'declined' });
    expect(decided.transcript.filter((t) => t.speaker === 'customer')).toEqual([
      { speaker: 'customer', key: '1' },
      { speaker: 'customer', key: '2' },
    ]);
  });

  it('says nothing before the first key that names a product, a price or the total, for any order in either language', () => {
    const line = fc.record({
      title: fc.stringMatching(/^[A-Za-z]{4,30}$/).map((t) => `Product ${t}`),
      quantity: fc.integer({ min: 1, max: 10_000 }),
      price: fc.integer({ min: 1, max: 99_999_999 }).map((c) => (c / 100).toFixed(2)),
    });
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 12 }),
        fc.constantFrom('de-DE', 'en-GB', 'en-US'),
        fc.option(fc.constantFrom('2', '3', '#', '*'), { nil: null }),
        fc.boolean(),
        (lines, locale, firstMiss, offered) => {
          const total = (lines.reduce((sum, l) => sum + Math.round(Number(l.price) * 100) * l.quantity, 0) / 100).toFixed(2);
          const input = order_({
            lines,
            locales: [locale],
            total,
            storeName: 'The Store',
            offer: offered ? { title: 'Product Offered', price: '4.20', kind: 'adds' } : undefined,
          });
          const script = dialogScript(input);
          const money = new Intl.NumberFormat(script.language === 'de' ? 'de-DE' : locale, { style: 'currency', currency: 'EUR' });
          const named = [
            ...lines.map((l) => l.title),
            'Product Offered',
            ...lines.map((l) => money.format(l.price as `${number}`)),
            money.format(total as `${number}`),
            money.format('4.20'),
          ];
          // Every turn until a key reads the order: the greeting, its repeat after a miss, and the goodbye after the second.
          for (const turn of play(input, [firstMiss, firstMiss])) for (const text of named) expect(turn.say).not.toContain(text);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('speaks in the customer language, then the market default, then English', () => {
    expect(dialogScript(order_({ locales: ['de-AT', 'en-GB'] })).language).toBe('de');
    expect(dialogScript(order_({ locales: ['fr-FR', 'de-DE'] })).language).toBe('de');
    expect(dialogScript(order_({ locales: ['fr-FR', undefined] })).language).toBe('en');
    expect(dialogScript(order_({ locales: ['not a locale!', 'xx'] })).language).toBe('en');
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
          const input = order_({ lines, offer, locales: [locale], storeName: 'S'.repeat(300), total });
          const turns = heard(input, keys);
          for (const turn of [...play(input, []), ...turns]) expect(turn.say.length).toBeLessThanOrEqual(MAX_TURN_CHARS);
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
