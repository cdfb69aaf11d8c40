/**
 * What the telephone costs an order: the conversation the service really speaks (the dialog's
 * own script for a typical order, played with the sandbox's customers) and the attempts the
 * sandbox's scenarios mix gives (each last digit of the phone number a tenth of the orders, the
 * default of three attempts), timed at a speaking rate and priced per minute started.
 */

import { RING_TIMEOUT_SECONDS } from '#shared/calls/connect/connect-platform.ts';
import { dialogScript } from '#shared/calls/dialog.ts';
import { converse, sandboxCustomer } from '#shared/calls/simulated-customer.ts';
import { TENANT_DEFAULTS } from '#shared/tenants/tenant-config.ts';

/** Speech synthesis reads about 150 words a minute. */
const WORDS_PER_SECOND = 2.5;
/** A customer presses a key a few seconds after the question ends. */
const SECONDS_TO_PRESS = 3;
/** A busy line or a number that does not exist answers with its tone within a few seconds. */
const SECONDS_TO_REFUSE = 5;

/** A typical order: three lines and an offer, read in English. */
const TYPICAL_ORDER = dialogScript({
  storeName: 'Example Store',
  orderedAt: '2026-11-24T09:00:00Z',
  timeZone: 'Europe/Berlin',
  locales: ['en-GB'],
  currency: 'EUR',
  lines: [
    { title: 'Trail running shoes', quantity: 1, price: '89.90' },
    { title: 'Merino socks, three pairs', quantity: 2, price: '12.50' },
    { title: 'Water bottle', quantity: 1, price: '9.99' },
  ],
  total: '124.89',
  offer: { title: 'Trail running shoes, waterproof', price: '109.90', kind: 'replaces' },
});

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** One attempt's billed length in seconds, and whether the order is done after it. */
function attemptSeconds(phone: string, attempt: number): { seconds: number; final: boolean } {
  const behaviour = sandboxCustomer(phone, attempt);
  if (behaviour.kind === 'no_answer') return { seconds: RING_TIMEOUT_SECONDS, final: false };
  if (behaviour.kind === 'busy' || behaviour.kind === 'voicemail') return { seconds: SECONDS_TO_REFUSE, final: false };
  if (behaviour.kind === 'invalid_number') return { seconds: SECONDS_TO_REFUSE, final: true };
  const { transcript } = converse(TYPICAL_ORDER, behaviour);
  const spoken = transcript.reduce((sum, e) => sum + (e.speaker === 'service' ? words(e.text) / WORDS_PER_SECOND : SECONDS_TO_PRESS), 0);
  return { seconds: spoken, final: true };
}

export interface CallMinutes {
  /** Minutes billed per order (each attempt rounded up to the minute), over the scenarios mix. */
  billedMinutesPerOrder: number;
  /** Attempts per order over the mix. */
  attemptsPerOrder: number;
  /** The answered conversation's own length in seconds (the typical order, confirmed). */
  conversationSeconds: number;
}

export function callMinutes(maxAttempts = TENANT_DEFAULTS.max_call_attempts): CallMinutes {
  let minutes = 0;
  let attempts = 0;
  for (let digit = 0; digit < 10; digit++) {
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const { seconds, final } = attemptSeconds(`+4930000000${digit}`, attempt);
      minutes += Math.ceil(seconds / 60);
      attempts++;
      if (final) break;
    }
  }
  return { billedMinutesPerOrder: minutes / 10, attemptsPerOrder: attempts / 10, conversationSeconds: attemptSeconds('+493000000000', 1).seconds };
}
