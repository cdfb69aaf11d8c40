/**
 * The live call platform on Amazon Connect, behind the `CallPlatform` port. A dial is one
 * StartOutboundVoiceContact request (its client makes one attempt: a claimed dial is one
 * request, and the dial rate counts requests): its client token is made from tenant, order and
 * attempt, it comes from the caller id of the customer's market, carries one opaque attribute
 * (the attempt's reference) and nothing personal, and, with campaign traffic (the only traffic
 * Connect honours it for), rings at most RING_TIMEOUT_SECONDS; general traffic rings up to
 * Connect's 60 s. The contact id is mapped to the attempt (`contacts`), and the outcome arrives
 * later, from Connect's contact events: the dial answers `pending`.
 *
 * What a dial answers is classified (contract-decisions section 11): ThrottlingException waits
 * for the next second, LimitExceededException (the concurrent-calls quota) for a call to end,
 * and a refusal of the destination or the permission (DestinationNotAllowedException,
 * OutboundContactNotPermittedException, an invalid number) ends the order.
 *
 * The order's `dialing` claim stays the only gate against a second dial: a client token sent
 * again after its contact ended dials again.
 */
import {
  type ConnectClient,
  DescribeContactCommand,
  StartOutboundVoiceContactCommand,
  StopContactCommand,
  UpdateContactAttributesCommand,
} from '@aws-sdk/client-connect';
import {
  type AttemptKey,
  type AttemptReport,
  attemptReference,
  type CallPlatform,
  type CallRequest,
  DialOverQuota,
  DialRefused,
  DialThrottled,
} from '../call-platform.ts';
import { reportOfContactEnd } from './contact-events.ts';
import type { ContactMap } from './contact-store.ts';

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

const REFUSED_DESTINATIONS = new Set(['DestinationNotAllowedException', 'OutboundContactNotPermittedException']);

/**
 * What Connect's refusal of a dial means: throttled, over the calls quota, the destination
 * refused, or undefined (anything else: the dial may or may not have been placed, and the
 * attempt is recovered at its deadline). An invalid-parameter or invalid-request answer is the
 * destination's only when it names the destination number: any other is this deployment's
 * fault, which must not end customers' orders.
 */
export function dialRefusal(error: unknown): DialThrottled | DialOverQuota | DialRefused | undefined {
  const { name = '', message = '' } = error as { name?: string; message?: string };
  if (name === 'ThrottlingException') return new DialThrottled('Amazon Connect throttled the dial');
  if (name === 'LimitExceededException') return new DialOverQuota('Amazon Connect has as many calls in flight as its quota allows');
  if (REFUSED_DESTINATIONS.has(name)) return new DialRefused(`Amazon Connect refused the destination (${name})`);
  if ((name === 'InvalidParameterException' || name === 'InvalidRequestException') && /destination/i.test(message))
    return new DialRefused(`Amazon Connect refused the destination number (${name})`);
  return undefined;
}

/** The platform's clients: the dialer makes one attempt per request (a claimed dial is one dial); the other calls retry as the SDK does. */
export interface ConnectClients {
  dialer: ConnectClient;
  client: ConnectClient;
}

/** A market's customers see a number of their own country, never another's: without one nothing is dialled. */
const callerIdOf = (settings: ConnectSettings, request: CallRequest): string | undefined => settings.callerIds[request.market ?? ''];

export function connectCallPlatform(clients: ConnectClients, settings: ConnectSettings, contacts: ContactMap): CallPlatform {
  const { dialer, client } = clients;
  const dial = (request: CallRequest, reference: string, contactFlowId: string) =>
    dialer.send(
      new StartOutboundVoiceContactCommand({
        InstanceId: settings.instanceId,
        ContactFlowId: contactFlowId,
        DestinationPhoneNumber: request.phone,
        SourcePhoneNumber: callerIdOf(settings, request),
        ClientToken: reference,
        Attributes: { [ATTEMPT_ATTRIBUTE]: reference },
        ...(settings.campaignTraffic
          ? {
              TrafficType: 'CAMPAIGN',
              AnswerMachineDetectionConfig: { EnableAnswerMachineDetection: true, AwaitAnswerMachinePrompt: true },
              RingTimeoutInSeconds: RING_TIMEOUT_SECONDS,
            }
          : { TrafficType: 'GENERAL' }),
      }),
    );
  return {
    name: 'connect',
    stuckAfterSeconds: settings.stuckAfterSeconds,
    async startAttempt(request) {
      const { contactFlowId } = settings;
      if (!contactFlowId) throw new Error('this function places no calls: its environment has no CONNECT_CONTACT_FLOW_ID');
      if (!callerIdOf(settings, request)) throw new DialRefused(`the deployment has no caller id for market ${request.market ?? '(none)'}`);
      const { tenant, external_order_id, attempt, external_customer_id } = request;
      const prepared = { reference: attemptReference(request), tenant, external_order_id, attempt, external_customer_id };
      // Before the dial: however soon the customer answers, the flow's first turn finds the attempt.
      await contacts.prepare(prepared);
      const { ContactId } = await dial(request, prepared.reference, contactFlowId).catch((error: unknown) => {
        throw dialRefusal(error) ?? error;
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
        // An attempt prepared but never placed (its dial refused or throttled) has no contact in Connect to blank.
        if (!contact.contactId) {
          await contacts.forget(contact);
          continue;
        }
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
  // The contact's end, as its event would have said it: the customer's choice stands (reportOfContactEnd).
  return reportOfContactEnd(
    {
      contactId: mapped.contactId,
      initiatedAt: Contact.InitiationTimestamp?.toISOString(),
      connectedAt: Contact.ConnectedToSystemTimestamp?.toISOString(),
      disconnectedAt: Contact.DisconnectTimestamp.toISOString(),
      disconnectReason: Contact.DisconnectReason,
      detection: Contact.AnsweringMachineDetectionStatus,
    },
    attempt,
    now,
  );
}
