/**
 * The live call platform on Amazon Connect, behind the `CallPlatform` port. A dial is one
 * StartOutboundVoiceContact: its client token is made from tenant, order and attempt (so an SDK
 * retry of the same dial is the same contact), it comes from the caller id of the customer's
 * market, rings at most RING_TIMEOUT_SECONDS, and carries one opaque attribute (the attempt's
 * reference) and nothing personal. The contact id is mapped to the attempt (`contacts`), and
 * the outcome arrives later, from Connect's contact events: the dial answers `pending`.
 *
 * The order's `dialing` claim stays the only gate against a second dial: a client token sent
 * again after its contact ended dials again.
 */
import { createHash } from 'node:crypto';
import {
  type ConnectClient,
  DescribeContactCommand,
  StartOutboundVoiceContactCommand,
  StopContactCommand,
  UpdateContactAttributesCommand,
} from '@aws-sdk/client-connect';
import { type AttemptKey, type AttemptReport, type CallPlatform, type CallRequest, DialThrottled } from '../call-platform.ts';
import type { ContactMap } from './contact-store.ts';
import { connectDisposition } from './dispositions.ts';

/** How long a dial rings before it is `no_answer`. */
export const RING_TIMEOUT_SECONDS = 30;
/**
 * The longest a Connect call can last: the ring, the opening and two questions read out with
 * their input waits, and the goodbye, with room to spare. Past it, Connect is asked what became of it.
 */
export const CONNECT_LONGEST_CALL_SECONDS = 600;
/** The attribute that carries the attempt's opaque reference, and nothing else is set on a contact. */
export const ATTEMPT_ATTRIBUTE = 'attempt_ref';

export interface ConnectSettings {
  /** The instance's id (the last part of its ARN). */
  instanceId: string;
  /** The flow a dial runs; a function without one places no calls (the dialog function, the contact-events worker). */
  contactFlowId: string | undefined;
  /** The claimed number each market's calls come from, by ISO country code. */
  callerIds: Readonly<Record<string, string>>;
  /** Campaign traffic (a service-quota approval) brings answering-machine detection. */
  campaignTraffic: boolean;
  /** The longest a call can last, ring and conversation: past it the attempt is recovered. */
  stuckAfterSeconds: number;
}

/** An attempt's opaque reference: what the contact's attributes carry instead of anything about the customer. */
export const attemptReference = (key: AttemptKey): string =>
  createHash('sha256').update(`${key.tenant}\n${key.external_order_id}\n${key.attempt}`).digest('base64url').slice(0, 32);

const isThrottling = (error: unknown) =>
  (error as { name?: string }).name === 'ThrottlingException' || (error as { name?: string }).name === 'LimitExceededException';

const iso = (at: Date | undefined, fallback: Date) => (at ?? fallback).toISOString();

export function connectCallPlatform(client: ConnectClient, settings: ConnectSettings, contacts: ContactMap): CallPlatform {
  const callerIdFor = (request: CallRequest) => settings.callerIds[request.market ?? ''] ?? Object.values(settings.callerIds)[0];
  const dial = (request: CallRequest, reference: string, contactFlowId: string) =>
    client.send(
      new StartOutboundVoiceContactCommand({
        InstanceId: settings.instanceId,
        ContactFlowId: contactFlowId,
        DestinationPhoneNumber: request.phone,
        SourcePhoneNumber: callerIdFor(request),
        ClientToken: reference,
        Attributes: { [ATTEMPT_ATTRIBUTE]: reference },
        RingTimeoutInSeconds: RING_TIMEOUT_SECONDS,
        ...(settings.campaignTraffic
          ? { TrafficType: 'CAMPAIGN', AnswerMachineDetectionConfig: { EnableAnswerMachineDetection: true, AwaitAnswerMachinePrompt: true } }
          : { TrafficType: 'GENERAL' }),
      }),
    );
  return {
    name: 'connect',
    stuckAfterSeconds: settings.stuckAfterSeconds,
    async startAttempt(request) {
      const { contactFlowId } = settings;
      if (!contactFlowId) throw new Error('this function places no calls: its environment has no CONNECT_CONTACT_FLOW_ID');
      const { tenant, external_order_id, attempt, external_customer_id } = request;
      const prepared = { reference: attemptReference(request), tenant, external_order_id, attempt, external_customer_id };
      // Before the dial: however soon the customer answers, the flow's first turn finds the attempt.
      await contacts.prepare(prepared);
      const { ContactId } = await dial(request, prepared.reference, contactFlowId).catch((error: unknown) => {
        if (isThrottling(error)) throw new DialThrottled('Amazon Connect throttled the dial');
        throw error;
      });
      if (!ContactId) throw new Error('Connect answered a dial without a contact id');
      await contacts.placed({ ...prepared, contactId: ContactId });
      return 'pending';
    },
    async cancel(key) {
      const contact = await contacts.ofAttempt(key);
      // No contact yet: the dial has not returned, and the caller checks the order right after it does.
      if (!contact || !(await contacts.claimStop(key))) return;
      await client.send(new StopContactCommand({ InstanceId: settings.instanceId, ContactId: contact.contactId })).catch((error: unknown) => {
        // A contact that already ended cannot be stopped: that is what the stop wanted.
        if ((error as { name?: string }).name !== 'ContactNotFoundException') throw error;
      });
    },
    async erase({ tenant, external_customer_id }) {
      // Connect keeps its contact record (24 months, not deletable); what this service put on it, the reference, is blanked.
      for (const contact of await contacts.ofCustomer(tenant, external_customer_id)) {
        await client
          .send(
            new UpdateContactAttributesCommand({
              InstanceId: settings.instanceId,
              InitialContactId: contact.contactId,
              Attributes: { [ATTEMPT_ATTRIBUTE]: '' },
            }),
          )
          .catch((error: unknown) => {
            // Connect updates attributes for a while after a contact ends; a contact past that has its reference as it was, meaning nothing without the items.
            if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
          });
        await contacts.forget(contact);
      }
    },
    outcomeOf: (key, now) => contactOutcome(client, settings, contacts, key, now),
  };
}

/** What Connect says became of an attempt's contact: `ongoing` until it disconnected; the dialog's decision with an answered call. */
async function contactOutcome(
  client: ConnectClient,
  settings: ConnectSettings,
  contacts: ContactMap,
  key: AttemptKey,
  now: Date,
): Promise<AttemptReport | 'ongoing' | undefined> {
  const mapped = await contacts.ofAttempt(key);
  if (!mapped) return undefined;
  const [attempt, { Contact }] = await Promise.all([
    contacts.byReference(mapped.reference),
    client.send(new DescribeContactCommand({ InstanceId: settings.instanceId, ContactId: mapped.contactId })).catch((error: unknown) => {
      // A contact Connect does not know (never placed after all): there is nothing to ask, and the attempt is failed.
      if ((error as { name?: string }).name === 'ResourceNotFoundException') return { Contact: undefined };
      throw error;
    }),
  ]);
  if (!Contact) return undefined;
  if (!Contact.DisconnectTimestamp) return 'ongoing';
  const call_disposition = connectDisposition({
    detection: Contact.AnsweringMachineDetectionStatus,
    disconnectReason: Contact.DisconnectReason,
    connected: Contact.ConnectedToSystemTimestamp !== undefined,
  });
  const report: AttemptReport = { call_disposition, started_at: iso(Contact.InitiationTimestamp, now), ended_at: iso(Contact.DisconnectTimestamp, now) };
  return call_disposition === 'answered' && attempt?.decision ? { ...report, decision: attempt.decision } : report;
}
