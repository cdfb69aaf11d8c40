/**
 * What the customer hears, one table per language. Every table has the same keys and the same
 * placeholders (a unit test holds them together); a placeholder is `{name}`, filled with text
 * that is already safe to speak (see `speakable` in dialog.ts).
 */
export const MESSAGES = {
  en: {
    greeting: 'Hello, this is {store}, calling about your order. To hear it, press 1.',
    greeting_again: 'To hear your order, press 1.',
    goodbye_unheard: 'We will call again later. Goodbye.',
    order_of: 'Your order of {date}:',
    line: '{quantity} times {title}, at {price} each.',
    more_lines: 'And {count} more items.',
    total: 'The total is {total}.',
    ask: 'To confirm the order, press 1. To cancel it, press 2.',
    offer_adds: 'To add {title} for {price}, press 3.',
    offer_replaces: 'To take {title} for {price} instead, press 3.',
    not_understood: 'Sorry, we did not get that.',
    goodbye_confirmed: 'Thank you, your order is confirmed. Goodbye.',
    goodbye_declined: 'Your order is cancelled. Goodbye.',
    goodbye_modified: 'Thank you, your order is confirmed with {title}. Goodbye.',
    goodbye_no_decision: 'We could not hear your choice, so your order stays as it is for now. Goodbye.',
  },
  de: {
    greeting: 'Guten Tag, hier ist {store}. Wir rufen wegen Ihrer Bestellung an. Um sie zu hören, drücken Sie die 1.',
    greeting_again: 'Um Ihre Bestellung zu hören, drücken Sie die 1.',
    goodbye_unheard: 'Wir rufen Sie später wieder an. Auf Wiederhören.',
    order_of: 'Ihre Bestellung vom {date}:',
    line: '{quantity} mal {title}, zu je {price}.',
    more_lines: 'Und {count} weitere Artikel.',
    total: 'Der Gesamtbetrag ist {total}.',
    ask: 'Um die Bestellung zu bestätigen, drücken Sie die 1. Um sie zu stornieren, drücken Sie die 2.',
    offer_adds: 'Um zusätzlich {title} für {price} zu bestellen, drücken Sie die 3.',
    offer_replaces: 'Um stattdessen {title} für {price} zu nehmen, drücken Sie die 3.',
    not_understood: 'Entschuldigung, das haben wir nicht verstanden.',
    goodbye_confirmed: 'Vielen Dank, Ihre Bestellung ist bestätigt. Auf Wiederhören.',
    goodbye_declined: 'Ihre Bestellung ist storniert. Auf Wiederhören.',
    goodbye_modified: 'Vielen Dank, Ihre Bestellung ist mit {title} bestätigt. Auf Wiederhören.',
    goodbye_no_decision: 'Wir haben Ihre Wahl nicht gehört, Ihre Bestellung bleibt vorerst, wie sie ist. Auf Wiederhören.',
  },
} as const;

export type Language = keyof typeof MESSAGES;
export type MessageKey = keyof (typeof MESSAGES)['en'];
export const LANGUAGES = Object.keys(MESSAGES) as Language[];

/** The message in `language` with its placeholders filled. */
export function message(language: Language, key: MessageKey, values: Record<string, string | number> = {}): string {
  return MESSAGES[language][key].replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ''));
}

/** The placeholders a message names, for the test that holds every table to the same ones. */
export const placeholdersOf = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
