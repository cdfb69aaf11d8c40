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
import { type ConnectClient, DescribeContactCommand, StartOutboundVoiceContactCommand, StopContactCommand } from '@aws-sdk/client-connect';
import type { AttemptKey, CallPlatform, CallRequest } from '../call-platform.ts';
import { type ContactOutcome, connectDisposition } from './dispositions.ts';

/** How long a dial rings before it is `no_answer`. */
export const RING_TIMEOUT_SECONDS = 30;

export interface ConnectSettings {
  instanceId: string;
  contactFlowId: string;
  /** The claimed number each market's calls come from, by ISO country code. */
  callerIds: Readonly<Record<string, string>>;
  /** Campaign traffic (a service-quota approval) brings answering-machine detection. */
  campaignTraffic: boolean;
  /** The longest a call can last, ring and conversation: past it the attempt is recovered. */
  stuckAfterSeconds: number;
}

/** Where the platform keeps which contact is which attempt (DynamoDB items on AWS and locally). */
export interface ContactMap {
  /** Records a dial's contact; a repeat of the same attempt's record changes nothing. */
  put(contact: { contactId: string; reference: string } & AttemptKey): Promise<void>;
  /** The contact of an attempt, and whether a stop was already sent for it (a stop is sent once). */
  ofAttempt(key: AttemptKey): Promise<{ contactId: string } | undefined>;
  /** Claims the one stop of an attempt's contact: false when it was claimed before. */
  claimStop(key: AttemptKey): Promise<boolean>;
}

/** An attempt's opaque reference: what the contact's attributes carry instead of anything about the customer. */
export const attemptReference = (key: AttemptKey): string =>
  createHash('sha256').update(`${key.tenant}\n${key.external_order_id}\n${key.attempt}`).digest('base64url').slice(0, 32);

export function connectCallPlatform(
  client: ConnectClient,
  settings: ConnectSettings,
  contacts: ContactMap,
): CallPlatform & {
  /** What Connect says became of an attempt's contact (for an attempt whose events never came). */
  outcomeOf(key: AttemptKey): Promise<(ContactOutcome & { ended: boolean; disposition: ReturnType<typeof connectDisposition> }) | undefined>;
} {
  const callerIdFor = (request: CallRequest) => settings.callerIds[request.market ?? ''] ?? Object.values(settings.callerIds)[0];
  return {
    name: 'connect',
    stuckAfterSeconds: settings.stuckAfterSeconds,
    async startAttempt(request) {
      const reference = attemptReference(request);
      const { ContactId } = await client.send(
        new StartOutboundVoiceContactCommand({
          InstanceId: settings.instanceId,
          ContactFlowId: settings.contactFlowId,
          DestinationPhoneNumber: request.phone,
          SourcePhoneNumber: callerIdFor(request),
          ClientToken: reference,
          Attributes: { attempt_ref: reference },
          RingTimeoutInSeconds: RING_TIMEOUT_SECONDS,
          ...(settings.campaignTraffic
            ? { TrafficType: 'CAMPAIGN', AnswerMachineDetectionConfig: { EnableAnswerMachineDetection: true, AwaitAnswerMachinePrompt: true } }
            : { TrafficType: 'GENERAL' }),
        }),
      );
      if (!ContactId) throw new Error('Connect answered a dial without a contact id');
      await contacts.put({ contactId: ContactId, reference, tenant: request.tenant, external_order_id: request.external_order_id, attempt: request.attempt });
      return 'pending';
    },
    async cancel(key) {
      const contact = await contacts.ofAttempt(key);
      // No contact yet: the dial has not returned, and the caller checks the order right after it does.
      if (!contact || !(await contacts.claimStop(key))) return;
      await client.send(new StopContactCommand({ InstanceId: settings.instanceId, ContactId: contact.contactId }));
    },
    async erase() {
      // What Connect keeps of a contact is its record (24 months, not deletable); its attributes carry no personal data.
    },
    async outcomeOf(key) {
      const contact = await contacts.ofAttempt(key);
      if (!contact) return undefined;
      const { Contact } = await client.send(new DescribeContactCommand({ InstanceId: settings.instanceId, ContactId: contact.contactId }));
      if (!Contact) return undefined;
      const outcome = {
        detection: Contact.AnsweringMachineDetectionStatus,
        disconnectReason: Contact.DisconnectReason,
        connected: Contact.ConnectedToSystemTimestamp !== undefined,
      };
      return { ...outcome, ended: Contact.DisconnectTimestamp !== undefined, disposition: connectDisposition(outcome) };
    },
  };
}
