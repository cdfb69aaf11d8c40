/**
 * What the delivery log keeps of a request and a receiver's answer: the start, with whatever
 * could identify a person or open a door masked. A receiver's error page may echo an e-mail
 * address, a bearer token or a phone number written with spaces; none of it belongs in a log
 * that partners, on-call and the admin CLI read.
 */
const EXCERPT_CHARACTERS = 1024;

type Mask = [RegExp, (match: string) => string];

const PERSONAL: Mask[] = [
  // E-mail addresses: the first character and the domain's last label stay, to recognise them.
  [/[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.(\p{L}{2,})/gu, (m) => `${m[0]}***@***.${m.split('.').at(-1)}`],
  // Phone numbers and card-like numbers: international with separators (+49 151 …), groups
  // of digits split by spaces, or a run of six or more. Dates and times (2026-11-24) stay.
  [/\+\d[\d\s().-]{5,}\d|\d{2,}(?: \d{2,}){2,}|\d{6,}/g, (m) => `${m.slice(0, 2)}${m.slice(2).replace(/\d/g, '*')}`],
];

const CREDENTIALS: Mask[] = [
  // Credentials after a scheme (`Bearer x`) or a key name (`token=x`, `"api_key": "x"`).
  [/\b(?:bearer|basic)\s+[^\s"',;&]{4,}/giu, (m) => m.replace(/\s+(\S{2})\S*$/u, ' $1***')],
  [
    /\b(?:token|secret|password|api[_-]?key|authorization|signature)["']?\s*[:=]\s*["']?(?!bearer\b|basic\b)[^\s"',;&]{4,}/giu,
    (m) => m.replace(/([^\s"',;&:=]{2})[^\s"',;&:=]*$/u, '$1***'),
  ],
  // Long opaque strings (tokens, JWTs, keys): letters and digits mixed, 20 or more.
  [/\b(?=[A-Za-z0-9_\-.+/=]*\d)(?=[A-Za-z0-9_\-.+/=]*[A-Za-z])[A-Za-z0-9_\-.+/=]{20,}/g, (m) => `${m.slice(0, 4)}***`],
];

const masked = (text: string, masks: readonly Mask[]) =>
  masks.reduce((kept, [pattern, mask]) => kept.replace(pattern, mask), text.slice(0, EXCERPT_CHARACTERS));

/** Our own request (the event): its ids stay readable for on-call; personal data is masked. */
export const requestExcerpt = (payload: string) => masked(payload, PERSONAL);

/** A receiver's answer, whose content nobody here controls: personal data and anything like a credential masked. */
export const responseExcerpt = (answer: string) => masked(answer, [...CREDENTIALS, ...PERSONAL]);
