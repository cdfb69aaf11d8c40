/**
 * Amazon Connect's contact events, as EventBridge delivers them (`source: aws.connect`,
 * `detail-type: Amazon Connect Contact Event`), read into what an attempt's report needs.
 * They are best-effort and unordered, and Connect's documented samples spell some fields in
 * more than one casing (`disconnectReason`, `DisconnectReason`, a string or `{ code }`): every
 * field is read whatever its casing. Only the end of a contact (DISCONNECTED, or COMPLETED
 * right after it with the same data) says how the attempt went; every other event is ignored.
 */
import type { AttemptKey, AttemptReport } from '../call-platform.ts';
import type { Decision } from '../dialog.ts';
import type { ContactMap } from './contact-store.ts';
import { connectDisposition } from './dispositions.ts';

/** The rule's pattern: our instance's contacts placed through the API (our dials), and nothing else. */
export const contactEventPattern = (instanceArn: string) => ({
  source: ['aws.connect'],
  detailType: ['Amazon Connect Contact Event'],
  detail: { instanceArn: [instanceArn], initiationMethod: ['API'], eventType: ['DISCONNECTED', 'COMPLETED'] },
});

export interface ContactEnd {
  contactId: string;
  initiatedAt: string | undefined;
  connectedAt: string | undefined;
  disconnectedAt: string | undefined;
  disconnectReason: string | undefined;
  detection: string | undefined;
}

/** The detail's fields by their lower-cased names, whichever casing the event used. */
function fieldsOf(detail: unknown): Map<string, unknown> {
  return new Map(detail && typeof detail === 'object' ? Object.entries(detail).map(([name, value]) => [name.toLowerCase(), value]) : []);
}

const textOf = (value: unknown): string | undefined => {
  if (typeof value === 'string' && value) return value;
  // Outbound campaigns give the disconnect reason as `{ code }`.
  if (value && typeof value === 'object') return textOf(fieldsOf(value).get('code'));
  return undefined;
};

const instantOf = (value: unknown): string | undefined => {
  const text = textOf(value);
  if (!text) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : new Date(at).toISOString();
};

/** The end of a contact an event tells of; undefined for any other event (or one that is not a contact's end). */
export function contactEnd(event: unknown): ContactEnd | undefined {
  const detail = fieldsOf(fieldsOf(event).get('detail'));
  const type = textOf(detail.get('eventtype'))?.toUpperCase();
  const contactId = textOf(detail.get('contactid'));
  if ((type !== 'DISCONNECTED' && type !== 'COMPLETED') || !contactId) return undefined;
  return {
    contactId,
    initiatedAt: instantOf(detail.get('initiationtimestamp')),
    connectedAt: instantOf(detail.get('connectedtosystemtimestamp')),
    disconnectedAt: instantOf(detail.get('disconnecttimestamp')),
    disconnectReason: textOf(detail.get('disconnectreason')),
    detection: textOf(detail.get('answeringmachinedetectionstatus')),
  };
}

/**
 * The attempt's report from the end of its contact and what the dialog kept of it. A choice the
 * customer made stands whatever the call's end says (a line that dropped after the key was
 * pressed reports a telecom problem): they answered, and decided.
 */
export function reportOfContactEnd(
  end: ContactEnd,
  attempt: { decision?: Decision | undefined; heard?: boolean | undefined } | undefined,
  receivedAt: Date,
): AttemptReport {
  const ended_at = end.disconnectedAt ?? receivedAt.toISOString();
  const started_at = end.initiatedAt ?? ended_at;
  if (attempt?.decision) return { call_disposition: 'answered', decision: attempt.decision, started_at, ended_at };
  const call_disposition = connectDisposition({ detection: end.detection, disconnectReason: end.disconnectReason, connected: end.connectedAt !== undefined });
  // Answered, yet no one pressed the key that reads the order, and nothing told a person from a
  // mailbox: it was no answer a person gave (contract-decisions section 11).
  if (call_disposition === 'answered' && !attempt?.heard && !end.detection) return { call_disposition: 'no_answer', started_at, ended_at };
  return { call_disposition, started_at, ended_at };
}

export interface ContactEndPorts {
  contacts: Pick<ContactMap, 'byContact' | 'byReference'>;
  /** Records an attempt's report once (order processing's `reportAttempt`). */
  reportAttempt(key: AttemptKey, report: AttemptReport, now: Date): Promise<void>;
}

/**
 * How long a contact's end may name a contact this service does not know yet: its dial's answer
 * (and the contact's item) can come after the call's first events, so a recent end is looked at
 * again; an older one is another flow's contact, or one an erasure forgot.
 */
export const UNKNOWN_CONTACT_WAIT_SECONDS = 120;

/**
 * A contact event, recorded: the end of one of our contacts becomes its attempt's report, with
 * the choice the dialog kept on the attempt's reference. Any other event changes nothing; an end
 * of a contact not known (yet) is `retry` while it is recent, else `ignored`.
 */
export async function recordContactEnd(ports: ContactEndPorts, event: unknown, now: Date): Promise<'recorded' | 'ignored' | 'retry'> {
  const end = contactEnd(event);
  if (!end) return 'ignored';
  const contact = await ports.contacts.byContact(end.contactId);
  if (!contact) {
    const endedAt = Date.parse(end.disconnectedAt ?? end.initiatedAt ?? '');
    return Number.isNaN(endedAt) || now.getTime() - endedAt < UNKNOWN_CONTACT_WAIT_SECONDS * 1000 ? 'retry' : 'ignored';
  }
  await ports.reportAttempt(contact, reportOfContactEnd(end, await ports.contacts.byReference(contact.reference), now), now);
  return 'recorded';
}
